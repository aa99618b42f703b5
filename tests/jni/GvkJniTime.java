// SPDX-License-Identifier: MIT
// Times gvk's drop-in Pair-HMM against GKL's own library in one JVM, as GATK calls it
// (IntelPairHmmOMP, one caller thread, GATK's batches), and compares their likelihoods bit by bit.
// The GKL jar is loaded twice, by two class loaders whose native libraries come from the two
// directories; the holder classes and the binding interface are shared.
// Usage: USE_LIBRARY_PATH=1 java GvkJniTime DATADIR GKL_JAR GVK_LIBDIR GKL_LIBDIR [PAIRS [THREADS [ROUNDS]]]
// (GVK_TIME_STRICT set: exit 1 unless all likelihoods agree bit for bit)
import org.broadinstitute.gatk.nativebindings.pairhmm.HaplotypeDataHolder;
import org.broadinstitute.gatk.nativebindings.pairhmm.PairHMMNativeArguments;
import org.broadinstitute.gatk.nativebindings.pairhmm.PairHMMNativeBinding;
import org.broadinstitute.gatk.nativebindings.pairhmm.ReadDataHolder;

import java.io.*;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import java.util.zip.GZIPInputStream;

public class GvkJniTime {
    static final class Loader extends URLClassLoader {
        final String dir;
        Loader(URL jar, String dir) { super(new URL[] {jar}, GvkJniTime.class.getClassLoader()); this.dir = dir; }
        @Override protected String findLibrary(String name) {
            File f = new File(dir, System.mapLibraryName(name));
            return f.exists() ? f.getAbsolutePath() : null;
        }
    }

    static final class Batch { ReadDataHolder[] reads; HaplotypeDataHolder[] haps; long cells; }

    static byte[] phred(String s) {
        byte[] b = new byte[s.length()];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (s.charAt(i) - 33);
        return b;
    }

    // GATK-shaped batches: the carneiro_1m groups (real HaplotypeCaller batches), repeated.
    static List<Batch> workload(Path data, long pairs) throws IOException {
        List<Batch> groups = new ArrayList<>();
        Path p = data.resolve("pairhmm/inputs/carneiro_1m.in.gz");
        try (BufferedReader br = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(p)), StandardCharsets.ISO_8859_1))) {
            for (String l; (l = br.readLine()) != null; ) {
                if (l.isEmpty() || l.startsWith("#")) continue;
                String[] rh = l.trim().split("\\s+");
                Batch b = new Batch();
                b.reads = new ReadDataHolder[Integer.parseInt(rh[0])];
                b.haps = new HaplotypeDataHolder[Integer.parseInt(rh[1])];
                long rl = 0, hl = 0;
                for (int i = 0; i < b.reads.length; i++) {
                    String[] f = br.readLine().trim().split("\\s+");
                    ReadDataHolder r = new ReadDataHolder();
                    r.readBases = f[0].getBytes(StandardCharsets.ISO_8859_1);
                    r.readQuals = phred(f[1]); r.insertionGOP = phred(f[2]); r.deletionGOP = phred(f[3]); r.overallGCP = phred(f[4]);
                    b.reads[i] = r;
                    rl += r.readBases.length;
                }
                for (int i = 0; i < b.haps.length; i++) {
                    HaplotypeDataHolder h = new HaplotypeDataHolder();
                    h.haplotypeBases = br.readLine().trim().getBytes(StandardCharsets.ISO_8859_1);
                    b.haps[i] = h;
                    hl += h.haplotypeBases.length;
                }
                b.cells = rl * hl;
                groups.add(b);
            }
        }
        List<Batch> all = new ArrayList<>();
        for (long n = 0; n < pairs; ) for (Batch b : groups) {
            if (n >= pairs) break;
            all.add(b);
            n += (long) b.reads.length * b.haps.length;
        }
        return all;
    }

    static PairHMMNativeBinding open(String jar, String dir, int threads) throws Exception {
        Loader l = new Loader(new File(jar).toURI().toURL(), dir);
        PairHMMNativeBinding h = (PairHMMNativeBinding) l.loadClass("com.intel.gkl.pairhmm.IntelPairHmmOMP").getDeclaredConstructor().newInstance();
        if (!h.load(null)) throw new IllegalStateException("could not load libgkl_pairhmm_omp.so from " + dir);
        PairHMMNativeArguments a = new PairHMMNativeArguments();
        a.maxNumberOfThreads = threads;
        a.useDoublePrecision = false;
        h.initialize(a);
        return h;
    }

    static double run(PairHMMNativeBinding h, List<Batch> w, double[][] out) {
        long t0 = System.nanoTime();
        for (int i = 0; i < w.size(); i++) h.computeLikelihoods(w.get(i).reads, w.get(i).haps, out[i]);
        return (System.nanoTime() - t0) * 1e-9;
    }

    public static void main(String[] args) throws Exception {
        if (System.getenv("USE_LIBRARY_PATH") == null) throw new IllegalStateException("set USE_LIBRARY_PATH=1");
        Path data = Paths.get(args[0]);
        String jar = args[1], ours = args[2], gkl = args[3];
        long pairs = args.length > 4 ? Long.parseLong(args[4]) : 2000000;
        int threads = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        int rounds = args.length > 6 ? Integer.parseInt(args[6]) : 2;
        List<Batch> w = workload(data, pairs);
        long np = 0, cells = 0;
        double[][] a = new double[w.size()][], b = new double[w.size()][];
        for (int i = 0; i < w.size(); i++) {
            int n = w.get(i).reads.length * w.get(i).haps.length;
            a[i] = new double[n]; b[i] = new double[n];
            np += n; cells += w.get(i).cells;
        }
        System.out.printf("workload: %d pairs in %d GATK batches (carneiro_1m groups repeated), %.3g cells, %d native threads%n",
                          np, w.size(), (double) cells, threads);
        PairHMMNativeBinding g = open(jar, ours, threads), k = open(jar, gkl, threads);
        double bg = 1e300, bk = 1e300;
        for (int r = 0; r < rounds; r++) { // alternating, best of the rounds
            double tg = run(g, w, a), tk = run(k, w, b);
            System.out.printf("round %d: gvk %.3f s (%.3g pairs/s), GKL %.3f s (%.3g pairs/s)%n", r + 1, tg, np / tg, tk, np / tk);
            bg = Math.min(bg, tg); bk = Math.min(bk, tk);
        }
        long diff = 0;
        for (int i = 0; i < w.size(); i++)
            for (int j = 0; j < a[i].length; j++)
                if (Double.doubleToRawLongBits(a[i][j]) != Double.doubleToRawLongBits(b[i][j])) diff++;
        System.out.printf("best: gvk %.3f s, GKL %.3f s, gvk speed-up %.2fx; %d of %d likelihoods differ in bits%n",
                          bg, bk, bk / bg, diff, np);
        g.done(); k.done();
        // strict: GKL ran its AVX-512 kernel here, so every bit must agree.
        if (System.getenv("GVK_TIME_STRICT") != null && diff != 0) { System.out.println("FAIL"); System.exit(1); }
    }
}
