// SPDX-License-Identifier: MIT
// Test client for gvk's GKL drop-in libraries: calls them through the real GKL jar, as GATK 4 does
// (IntelPairHmm / IntelPairHmmOMP / IntelSmithWaterman, loaded with USE_LIBRARY_PATH=1 and
// -Djava.library.path=<gvk build>/jni), and compares with the reference outputs of tests/data.
// Usage: java GvkJniCheck pairhmm|omp|double|sw|threads|errors|errors_omp DATADIR LIBDIR [args]
import com.intel.gkl.pairhmm.IntelPairHmm;
import com.intel.gkl.pairhmm.IntelPairHmmOMP;
import com.intel.gkl.smithwaterman.IntelSmithWaterman;
import org.broadinstitute.gatk.nativebindings.pairhmm.HaplotypeDataHolder;
import org.broadinstitute.gatk.nativebindings.pairhmm.PairHMMNativeArguments;
import org.broadinstitute.gatk.nativebindings.pairhmm.ReadDataHolder;
import org.broadinstitute.gatk.nativebindings.smithwaterman.SWNativeAlignerResult;
import org.broadinstitute.gatk.nativebindings.smithwaterman.SWOverhangStrategy;
import org.broadinstitute.gatk.nativebindings.smithwaterman.SWParameters;

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.zip.GZIPInputStream;

public class GvkJniCheck {
    // One GATK batch: reads x haplotypes, with the expected lines in read-major order.
    static final class Batch {
        ReadDataHolder[] reads;
        HaplotypeDataHolder[] haps;
        double[] expect;
        boolean[] usedDouble;
        String where;
    }

    static BufferedReader open(Path p) throws IOException {
        InputStream in = Files.newInputStream(p);
        if (p.toString().endsWith(".gz")) in = new GZIPInputStream(in, 1 << 16);
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1), 1 << 16);
    }

    static Path either(Path dir, String name) {
        Path p = dir.resolve(name);
        return Files.exists(p) ? p : dir.resolve(name + ".gz");
    }

    static byte[] phred(String s, int floor) {
        byte[] b = new byte[s.length()];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Math.max(s.charAt(i) - 33, floor);
        return b;
    }

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static ReadDataHolder read(String bases, byte[] q, byte[] ins, byte[] del, byte[] gcp) {
        ReadDataHolder r = new ReadDataHolder();
        r.readBases = bases.getBytes(StandardCharsets.ISO_8859_1);
        r.readQuals = q; r.insertionGOP = ins; r.deletionGOP = del; r.overallGCP = gcp;
        return r;
    }

    static HaplotypeDataHolder hap(String bases) {
        HaplotypeDataHolder h = new HaplotypeDataHolder();
        h.haplotypeBases = bases.getBytes(StandardCharsets.ISO_8859_1);
        return h;
    }

    // Expected file: log10 (%.17g), used_double, ...; '#' comments.
    static List<String[]> expected(Path p) throws IOException {
        List<String[]> out = new ArrayList<>();
        try (BufferedReader br = open(p)) {
            for (String l; (l = br.readLine()) != null; ) if (!l.startsWith("#") && !l.isEmpty()) out.add(l.split("\\s+"));
        }
        return out;
    }

    // C's %g spellings of the special values.
    static double num(String s) {
        switch (s.toLowerCase()) {
        case "-inf": return Double.NEGATIVE_INFINITY;
        case "inf": return Double.POSITIVE_INFINITY;
        case "nan": case "-nan": return Double.NaN;
        default: return Double.parseDouble(s);
        }
    }

    static void fill(Batch b, List<String[]> exp, int at) {
        int n = b.reads.length * b.haps.length;
        b.expect = new double[n];
        b.usedDouble = new boolean[n];
        for (int k = 0; k < n; k++) {
            String[] f = exp.get(at + k);
            b.expect[k] = num(f[0]);
            b.usedDouble[k] = f[1].equals("1");
        }
    }

    // The reference sets of tests/data/pairhmm with their AVX-512 expectations.
    static List<Batch> loadPairhmm(Path data) throws IOException {
        List<Batch> all = new ArrayList<>();
        Path in = data.resolve("pairhmm/inputs"), ex = data.resolve("pairhmm/expected");
        for (String set : new String[] {"carneiro_tiny", "carneiro_10s", "gpupairhmm_readme_example", "carneiro_1m"}) {
            List<String[]> exp = expected(either(ex, set + ".gkl_avx512.txt"));
            int at = 0, g = 0;
            try (BufferedReader br = open(either(in, set + ".in"))) {
                for (String l; (l = br.readLine()) != null; ) {
                    if (l.isEmpty() || l.startsWith("#")) continue;
                    String[] rh = l.trim().split("\\s+");
                    Batch b = new Batch();
                    b.reads = new ReadDataHolder[Integer.parseInt(rh[0])];
                    b.haps = new HaplotypeDataHolder[Integer.parseInt(rh[1])];
                    for (int i = 0; i < b.reads.length; i++) {
                        String[] f = br.readLine().trim().split("\\s+");
                        b.reads[i] = read(f[0], phred(f[1], 0), phred(f[2], 0), phred(f[3], 0), phred(f[4], 0));
                    }
                    for (int i = 0; i < b.haps.length; i++) b.haps[i] = hap(br.readLine().trim());
                    fill(b, exp, at);
                    at += b.expect.length;
                    b.where = set + " group " + (++g);
                    all.add(b);
                }
            }
            if (at != exp.size()) throw new IllegalStateException(set + ": " + at + " pairs vs " + exp.size() + " expected");
        }
        // One pair per line: GKL's own test data (read quals floored at 6, as its unit test does) and hex sets.
        for (String set : new String[] {"gkl_pairhmm-testdata", "edge", "stress_random", "stress_realistic"}) {
            List<String[]> exp = expected(either(ex, set + ".gkl_avx512.txt"));
            boolean isHex = !set.startsWith("gkl");
            Path ip = isHex ? either(in, set + ".hex") : in.resolve(set + ".txt");
            int at = 0;
            try (BufferedReader br = open(ip)) {
                for (String l; (l = br.readLine()) != null; ) {
                    if (l.isEmpty() || l.startsWith("#")) continue;
                    String[] f = l.trim().split("\\s+");
                    Batch b = new Batch();
                    b.haps = new HaplotypeDataHolder[] {hap(f[0])};
                    b.reads = new ReadDataHolder[] {isHex
                        ? read(f[1], hex(f[2]), hex(f[3]), hex(f[4]), hex(f[5]))
                        : read(f[1], phred(f[2], 6), phred(f[3], 0), phred(f[4], 0), phred(f[5], 0))};
                    fill(b, exp, at++);
                    b.where = set + " line " + at;
                    all.add(b);
                }
            }
            if (at != exp.size()) throw new IllegalStateException(set + ": " + at + " pairs vs " + exp.size() + " expected");
        }
        return all;
    }

    static IntelPairHmm newPairHmm(boolean omp, int threads, boolean dbl) {
        IntelPairHmm h = omp ? new IntelPairHmmOMP() : new IntelPairHmm();
        if (!h.load(null)) throw new IllegalStateException("GKL could not load " + (omp ? "gkl_pairhmm_omp" : "gkl_pairhmm"));
        PairHMMNativeArguments a = new PairHMMNativeArguments();
        a.maxNumberOfThreads = threads;
        a.useDoublePrecision = dbl;
        h.initialize(a);
        return h;
    }

    // Pairs whose bits differ from the expectation; with dbl only pairs GKL sent to double are exact.
    static long checkPairhmm(IntelPairHmm h, List<Batch> batches, boolean dbl, String tag) {
        long bad = 0, n = 0, exact = 0;
        for (Batch b : batches) {
            double[] lk = new double[b.expect.length];
            h.computeLikelihoods(b.reads, b.haps, lk);
            for (int k = 0; k < lk.length; k++) {
                n++;
                boolean same = Double.doubleToRawLongBits(lk[k]) == Double.doubleToRawLongBits(b.expect[k]);
                if (dbl && !b.usedDouble[k]) {
                    if (Math.abs(lk[k] - b.expect[k]) > 1e-3) { if (bad++ < 5) System.err.printf("%s %s pair %d: double %.17g vs float %.17g%n", tag, b.where, k, lk[k], b.expect[k]); }
                    continue;
                }
                if (same) exact++;
                else if (bad++ < 5) System.err.printf("%s %s pair %d: got %.17g expected %.17g%n", tag, b.where, k, lk[k], b.expect[k]);
            }
        }
        System.out.printf("%s: %d pairs, %d bit-exact checks, %d mismatches%n", tag, n, exact, bad);
        return bad;
    }

    static void checkLoadedFrom(String lib, String dir) throws IOException {
        String want = new File(dir).getCanonicalPath() + "/lib" + lib + ".so";
        for (String l : Files.readAllLines(Paths.get("/proc/self/maps")))
            if (l.endsWith("/lib" + lib + ".so")) {
                String path = l.substring(l.indexOf('/'));
                if (!new File(path).getCanonicalPath().equals(want))
                    throw new IllegalStateException("lib" + lib + ".so loaded from " + path + ", not " + want);
                return;
            }
        throw new IllegalStateException("lib" + lib + ".so is not loaded");
    }

    // ---- Smith-Waterman ----------------------------------------------------------------------
    static final class SwCase {
        byte[] ref, alt;
        SWParameters par;
        SWOverhangStrategy st;
        String cigar, where;
        int offset;
    }

    static List<SwCase> loadSw(Path data) throws IOException {
        List<SwCase> all = new ArrayList<>();
        for (String set : new String[] {"unit_tests.tsv", "known_differences.tsv", "cutoff_regime.tsv", "hc_calculatecigar_cases.tsv",
                                        "exhaustive_small.tsv.gz", "random_vectors.tsv.gz", "long_vectors.tsv.gz"}) {
            try (BufferedReader br = open(data.resolve("align").resolve(set))) {
                List<String> head = Arrays.asList(br.readLine().split("\t"));
                boolean hc = head.contains("padded_ref");
                int ir = head.indexOf(hc ? "padded_ref" : "ref"), ia = head.indexOf(hc ? "padded_alt" : "alt");
                int im = head.indexOf("match"), is = head.indexOf("strategy"), ic = head.indexOf("gkl_cigar");
                int io = head.indexOf("gkl_offset"), icalled = head.indexOf("sw_called");
                int line = 1;
                for (String l; (l = br.readLine()) != null; ) {
                    line++;
                    String[] f = l.split("\t", -1);
                    if (icalled >= 0 && !f[icalled].equals("yes")) continue;
                    SwCase c = new SwCase();
                    c.ref = f[ir].getBytes(StandardCharsets.ISO_8859_1);
                    c.alt = f[ia].getBytes(StandardCharsets.ISO_8859_1);
                    c.par = new SWParameters(Integer.parseInt(f[im]), Integer.parseInt(f[im + 1]), Integer.parseInt(f[im + 2]), Integer.parseInt(f[im + 3]));
                    c.st = SWOverhangStrategy.valueOf(f[is]);
                    c.cigar = f[ic];
                    c.offset = Integer.parseInt(f[io]);
                    c.where = set + ":" + line;
                    all.add(c);
                }
            }
        }
        return all;
    }

    static IntelSmithWaterman newSw() {
        IntelSmithWaterman sw = new IntelSmithWaterman();
        if (!sw.load(null)) throw new IllegalStateException("GKL could not load gkl_smithwaterman");
        return sw;
    }

    static long checkSw(IntelSmithWaterman sw, List<SwCase> cases, String tag) {
        long bad = 0;
        for (SwCase c : cases) {
            SWNativeAlignerResult r = sw.align(c.ref, c.alt, c.par, c.st);
            if (!r.cigar.equals(c.cigar) || r.alignment_offset != c.offset)
                if (bad++ < 5) System.err.printf("%s %s: got %s %d expected %s %d%n", tag, c.where, r.cigar, r.alignment_offset, c.cigar, c.offset);
        }
        System.out.printf("%s: %d alignments, %d exact, %d mismatches%n", tag, cases.size(), cases.size() - bad, bad);
        return bad;
    }

    static long expectThrow(String what, Class<? extends Throwable> want, Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            boolean ok = want.isInstance(t);
            System.out.printf("%s: %s (%s)%s%n", what, t.getClass().getName(), t.getMessage(), ok ? "" : ", expected " + want.getName());
            return ok ? 0 : 1;
        }
        System.out.printf("%s: no exception, expected %s%n", what, want.getName());
        return 1;
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) { // worker threads would keep the JVM alive: fail instead of hanging
            t.printStackTrace();
            System.out.println("FAIL");
            System.exit(1);
        }
    }

    static void run(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: GvkJniCheck pairhmm|omp|double|sw|threads|errors|errors_omp DATADIR LIBDIR [threads|pairs]");
            System.exit(2);
        }
        String mode = args[0], lib = args[2];
        Path data = Paths.get(args[1]);
        long bad = 0;
        switch (mode) {
        case "pairhmm": case "omp": case "double": {
            boolean omp = !mode.equals("pairhmm"), dbl = mode.equals("double");
            List<Batch> b = loadPairhmm(data);
            IntelPairHmm h = newPairHmm(omp, 2, dbl);
            checkLoadedFrom(omp ? "gkl_pairhmm_omp" : "gkl_pairhmm", lib);
            checkLoadedFrom("gkl_utils", lib);
            if ("gpu".equalsIgnoreCase(System.getenv("GVK_DEVICE"))) {
                try {
                    h.computeLikelihoods(b.get(0).reads, b.get(0).haps, new double[b.get(0).expect.length]);
                } catch (RuntimeException e) {
                    System.out.println("SKIP: GVK_DEVICE=gpu and no usable GPU: " + e.getMessage());
                    System.exit(77);
                }
            }
            bad = checkPairhmm(h, b, dbl, omp ? "IntelPairHmmOMP" + (dbl ? " double" : "") : "IntelPairHmm");
            h.done();
            break;
        }
        case "sw": {
            List<SwCase> c = loadSw(data);
            IntelSmithWaterman sw = newSw();
            checkLoadedFrom("gkl_smithwaterman", lib);
            bad = checkSw(sw, c, "IntelSmithWaterman");
            sw.close();
            break;
        }
        case "threads": {
            int nt = args.length > 3 ? Integer.parseInt(args[3]) : 8;
            List<Batch> b = loadPairhmm(data);
            List<SwCase> c = loadSw(data);
            ExecutorService ex = Executors.newFixedThreadPool(nt);
            List<Future<Long>> fs = new ArrayList<>();
            for (int t = 0; t < nt; t++) {
                final int tid = t;
                final List<Batch> mine = new ArrayList<>(b);
                final List<SwCase> cs = new ArrayList<>(c);
                Collections.shuffle(mine, new Random(tid));
                Collections.shuffle(cs, new Random(tid));
                fs.add(ex.submit(() -> {
                    // GATK gives every thread its own binding object; all share one library (the
                    // OpenMP one: both libraries export the same JNI symbols, so one JVM loads one).
                    IntelPairHmm h = newPairHmm(true, 1 + tid % 3, false);
                    IntelSmithWaterman sw = newSw();
                    long e = checkPairhmm(h, mine, false, "thread " + tid + " pairhmm");
                    e += checkSw(sw, cs, "thread " + tid + " sw");
                    h.done();
                    sw.close();
                    return e;
                }));
            }
            for (Future<Long> f : fs) bad += f.get();
            ex.shutdown();
            checkLoadedFrom("gkl_pairhmm_omp", lib);
            checkLoadedFrom("gkl_smithwaterman", lib);
            break;
        }
        case "errors":
        case "errors_omp": {
            // GKL's exceptions for what GATK can hand over, and no damage afterwards; errors_omp
            // through the OpenMP library, whose helper threads copy part of each batch.
            boolean omp = mode.equals("errors_omp");
            List<Batch> b = loadPairhmm(data);
            IntelPairHmm h = newPairHmm(omp, omp ? 4 : 1, false);
            checkLoadedFrom(omp ? "gkl_pairhmm_omp" : "gkl_pairhmm", lib);
            java.lang.reflect.Method init = IntelPairHmm.class.getDeclaredMethod("initNative", Class.class, Class.class, boolean.class, int.class);
            init.setAccessible(true);
            bad += expectThrow("holder class without the fields", IllegalArgumentException.class, () -> {
                try { init.invoke(null, String.class, HaplotypeDataHolder.class, false, 1); }
                catch (java.lang.reflect.InvocationTargetException e) { throw (RuntimeException) e.getCause(); }
                catch (IllegalAccessException e) { throw new IllegalStateException(e); }
            });
            Batch g = b.get(0);
            ReadDataHolder broken = read(new String(g.reads[0].readBases, StandardCharsets.ISO_8859_1), null, g.reads[0].insertionGOP, g.reads[0].deletionGOP, g.reads[0].overallGCP);
            bad += expectThrow("null readQuals", IllegalArgumentException.class,
                () -> h.computeLikelihoods(new ReadDataHolder[] {g.reads[0], broken}, g.haps, new double[2 * g.haps.length]));
            // The same late in a batch of many reads, where another thread than the caller's
            // copies it when helpers run.
            ReadDataHolder[] many = new ReadDataHolder[61];
            java.util.Arrays.fill(many, g.reads[0]);
            many[57] = broken;
            bad += expectThrow("null readQuals in read 57 of 61", IllegalArgumentException.class,
                () -> h.computeLikelihoods(many, g.haps, new double[many.length * g.haps.length]));
            many[57] = g.reads[0];
            many[45] = null;
            bad += expectThrow("null read holder 45 of 61", IllegalArgumentException.class,
                () -> h.computeLikelihoods(many, g.haps, new double[many.length * g.haps.length]));
            ReadDataHolder empty = read("", new byte[0], new byte[0], new byte[0], new byte[0]);
            bad += expectThrow("empty read", IllegalArgumentException.class,
                () -> h.computeLikelihoods(new ReadDataHolder[] {empty}, g.haps, new double[g.haps.length]));
            ReadDataHolder shortq = read(new String(g.reads[0].readBases, StandardCharsets.ISO_8859_1), new byte[1], g.reads[0].insertionGOP, g.reads[0].deletionGOP, g.reads[0].overallGCP);
            bad += expectThrow("quality array shorter than the read", IllegalArgumentException.class,
                () -> h.computeLikelihoods(new ReadDataHolder[] {shortq}, g.haps, new double[g.haps.length]));
            many[45] = g.reads[0];
            many[60] = shortq;
            bad += expectThrow("quality array shorter than read 60 of 61", IllegalArgumentException.class,
                () -> h.computeLikelihoods(many, g.haps, new double[many.length * g.haps.length]));
            bad += expectThrow("null argument", NullPointerException.class, () -> h.computeLikelihoods(null, g.haps, new double[1]));
            // Quality arrays longer than the read: only the read's length counts, as in GKL.
            ReadDataHolder r0 = g.reads[0];
            byte[][] q = {r0.readQuals, r0.insertionGOP, r0.deletionGOP, r0.overallGCP};
            for (int k = 0; k < 4; k++) { q[k] = java.util.Arrays.copyOf(q[k], q[k].length + 9); java.util.Arrays.fill(q[k], q[k].length - 9, q[k].length, (byte) 2); }
            ReadDataHolder longq = read(new String(r0.readBases, StandardCharsets.ISO_8859_1), q[0], q[1], q[2], q[3]);
            double[] exact = new double[g.haps.length], padded = new double[g.haps.length];
            h.computeLikelihoods(new ReadDataHolder[] {r0}, g.haps, exact);
            h.computeLikelihoods(new ReadDataHolder[] {longq}, g.haps, padded);
            if (!java.util.Arrays.equals(exact, padded)) { System.err.println("FAIL: quality arrays longer than the read changed the likelihoods"); bad++; }
            bad += checkPairhmm(h, b, false, "IntelPairHmm after the errors");
            break;
        }
        default:
            System.err.println("unknown mode " + mode);
            System.exit(2);
        }
        System.out.println(bad == 0 ? "PASS" : "FAIL");
        System.exit(bad == 0 ? 0 : 1);
    }
}
