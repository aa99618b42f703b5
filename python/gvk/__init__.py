# SPDX-License-Identifier: MIT
"""gvk: GPU variant kernels (Pair-HMM, Smith-Waterman alignment, LD, FastID, CNV) from Python.

numpy arrays go to the C library by pointer (no copies: give C-contiguous arrays of the dtype each
call names), results come back as numpy arrays over the library's memory, and the GIL is released
while the library computes (ctypes does so around every foreign call)."""
import collections
import ctypes
import math
import os
import sys

try:
	import numpy as np
except ImportError:
	raise ImportError("gvk needs numpy, which %s cannot import: apt-get install python3-numpy (for Debian's "
	                  "/usr/bin/python3, or a venv made from it with --system-site-packages), or pip install numpy "
	                  "in this environment" % sys.executable) from None

from . import _lib

_L, library_path = _lib.load()

# The numpy records over the library's result structs, checked like _lib's ctypes structs.
_HIT = np.dtype([("db", "i8"), ("query", "u4"), ("score", "u4")], align=True)
_SEG = np.dtype([("seq", "i4"), ("sample", "i4"), ("first", "i4"), ("last", "i4"), ("mean", "f8"),
                 ("median", "f8"), ("cn", "i4"), ("is_cnv", "i4")], align=True)
_REGION = np.dtype([("seq", "i4"), ("first", "i4"), ("last", "i4"), ("cn", "u8")], align=True)
_table = _lib.library_layout(_L)
for _c, _d in (("gvk_fastid_hit_t", _HIT), ("gvk_cnv_seg_t", _SEG), ("gvk_cnv_region_t", _REGION)):
	_lib.check_layout(_c, "numpy dtype", (_d.itemsize, {n: (_d.fields[n][1], _d.fields[n][0].itemsize)
	                                                     for n in _d.names}), _table, library_path)
del _table, _c, _d

# Thread counts above this are refused (0 = all processors).
MAX_THREADS = 4096

__all__ = ["GvkError", "GvkArgError", "GvkRangeError", "version", "features", "library_path", "pairhmm", "pairhmm_file", "align", "ld_prune", "ld_clump",
           "ld", "ld_job", "ld_job_check", "fastid", "FastidDb", "fastid_search_db", "cnv", "cnv_counts_file",
           "cnv_counts_write", "cnv_table_suffix", "CNV_TABLES", "LdJobSummary", "FastidDbInfo"]

GVK_ERR_IO, GVK_ERR_ARG, GVK_ERR_UNSUPPORTED = -1, -4, -6


class GvkError(RuntimeError):
	"""A failure the library reported: .code is the GVK_ERR_* code, the message the library's."""

	def __init__(self, code, msg):
		super().__init__(msg)
		self.code = code


class GvkArgError(GvkError, ValueError):
	"""The library rejected an argument or option (GVK_ERR_ARG); also a ValueError."""


class GvkRangeError(OverflowError, ValueError):
	"""A number outside the range of the C type it goes to (an OverflowError and a ValueError)."""


_I32 = (-2 ** 31, 2 ** 31 - 1)
_I64 = (-2 ** 63, 2 ** 63 - 1)


def _int(name, v, lo, hi):
	"""v as an int within lo..hi (the C type's range or the call's), never wrapped."""
	if isinstance(v, (bool, np.bool_)):
		v = int(v)
	if isinstance(v, (float, np.floating)):
		if not math.isfinite(v) or v != int(v):
			raise ValueError("%s must be an integer, not %r" % (name, v))
		v = int(v)
	if not isinstance(v, (int, np.integer)):
		raise TypeError("%s must be an integer, not %s" % (name, type(v).__name__))
	v = int(v)
	if not lo <= v <= hi:
		raise GvkRangeError("%s = %d is out of range (%d .. %d)" % (name, v, lo, hi))
	return v


def _threads(name, v):
	v = _int(name, v, -2 ** 63, 2 ** 63)
	if not 0 <= v <= MAX_THREADS:
		raise GvkRangeError("%s = %d: give 0 (all processors) up to %d" % (name, v, MAX_THREADS))
	return v


def _path(name, p):
	"""A file path (str, bytes or os.PathLike) as the bytes the library opens."""
	if p is None:
		raise TypeError("%s is required (got None)" % name)
	try:
		b = os.fsencode(p)
	except TypeError:
		raise TypeError("%s must be a path (str, bytes or os.PathLike), not %s" % (name, type(p).__name__)) from None
	if b"\0" in b:
		raise ValueError("%s contains a NUL character: %r" % (name, p))
	return b


def _name(name, s):
	"""A name (sample, sequence, preset) as NUL-free UTF-8 bytes; numbers are taken as text."""
	if isinstance(s, (bytes, bytearray)):
		b = bytes(s)
	else:
		b = str(s).encode("utf-8", "surrogateescape")
	if b"\0" in b:
		raise ValueError("%s contains a NUL character: %r" % (name, s))
	return b


def _distinct(name, names):
	"""Refuses a name given twice (names: bytes)."""
	seen = {}
	for i, b in enumerate(names):
		if b in seen:
			raise ValueError("%s: %r is given twice (entries %d and %d); names must be distinct" % (
				name, b.decode("utf-8", "replace"), seen[b] + 1, i + 1))
		seen[b] = i


def _raise(err, rc=None, name=None):
	"""The library's error as GvkError; name: the file a message must name (the stream writers'
	"write error" does not know it)."""
	code = err.code if err.code else (rc if rc is not None else -1)
	msg = err.msg.decode("utf-8", "replace") or _L.gvk_strerror(code).decode()
	if name and name not in msg:
		msg = "%s: %s" % (name, msg)
	raise (GvkArgError if code == GVK_ERR_ARG else GvkError)(code, msg)


def version():
	"""The library's version string."""
	return _L.gvk_version().decode()


def feature_flags():
	"""What this build contains and this CPU runs, as GVK_FEATURE_* flags (gvk.h)."""
	return int(_L.gvk_features())


def features():
	"""What this build of the library can use, as a dict of its "key: value" lines."""
	n = _L.gvk_feature_string(None, 0)
	buf = ctypes.create_string_buffer(n + 1)
	_L.gvk_feature_string(buf, n + 1)
	out = {}
	for line in buf.value.decode().splitlines():
		k, sep, v = line.partition(":")
		if sep:
			out[k.strip()] = v.strip()
	return out


# ---------------------------------------------------------------------------------------------- options
_DEVICE = {"auto": 0, "cpu": 1, "gpu": 2}
_ISA = {"auto": 0, "scalar": 1, "avx512": 2, "avx2": 3, "neon": 4}


def _choice(name, value, table):
	if isinstance(value, str) and value.lower() in table:
		return table[value.lower()]
	raise ValueError("%s must be one of %s, not %r" % (name, ", ".join(table), value))


def _set_opts(o, kw, special=None):
	"""Keyword arguments onto an options struct: device/isa by name, other fields as numbers."""
	# Scalar fields only: log and arrays are set through their own calls.
	fields = dict((f[0], f[1]) for f in o._fields_ if issubclass(f[1], ctypes._SimpleCData) and f[0] != "log")
	for k, v in kw.items():
		if special and k in special:
			special[k](o, v)
			continue
		if k not in fields:
			raise TypeError("unknown option %r (options: %s)" % (k, ", ".join(sorted(list(fields) +
			                                                                       list(special or ())))))
		if k == "device":
			v = _choice("device", v, _DEVICE)
		elif k == "isa":
			v = _choice("isa", v, _ISA)
		t = fields[k]
		if t is ctypes.c_char_p:  # a string option: NULL for None, else a NUL-free text kept by o
			setattr(o, k, None if v is None else _name("option " + k, v))
		elif k == "threads":
			setattr(o, k, _threads("threads", v))
		elif issubclass(t, (ctypes.c_double, ctypes.c_float)):
			if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
				raise TypeError("option %s must be a number, not %s" % (k, type(v).__name__))
			try:
				setattr(o, k, float(v))
			except OverflowError:
				raise GvkRangeError("option %s is beyond the range of a double" % k) from None
		else:
			bits = 8 * ctypes.sizeof(t)
			signed = t(-1).value == -1
			lo, hi = (-2 ** (bits - 1), 2 ** (bits - 1) - 1) if signed else (0, 2 ** bits - 1)
			setattr(o, k, _int("option " + k, v, lo, hi))
	return o


class _Engine:
	"""An engine of the library for one call, destroyed when it returns."""

	def __init__(self, prefix, opts):
		self._destroy = getattr(_L, prefix + "_destroy")
		err = _lib.Err()
		self.e = getattr(_L, prefix + "_create")(ctypes.byref(opts), ctypes.byref(err))
		if not self.e:
			_raise(err)
		name = getattr(_L, prefix + "_device_name", None)
		self.device = name(self.e).decode() if name else None

	def __enter__(self):
		return self

	def __exit__(self, *a):
		self._destroy(self.e)


def _call(fn, *args):
	err = _lib.Err()
	rc = fn(*args, ctypes.byref(err))
	if rc < 0:
		_raise(err, rc)
	return rc


def _setter(fn, k):
	"""fn(o, k, v) as the special setter of field k that _set_opts calls as f(o, v)."""
	return lambda o, v: fn(o, k, v)


def _bool(o, k, v):
	setattr(o, k, int(bool(v)))


# ---------------------------------------------------------------------------------------------- files
_libc = _lib.libc()


def _drop(path):
	"""Removes a regular file a failed write left unfinished (a device or fifo stays)."""
	try:
		if os.path.isfile(path):
			os.remove(path)
	except OSError:
		pass


def _write_file(path, write):
	"""write(fp, err) -> rc on path opened with the C library's fopen; a failed open, write or close
	raises GvkError naming the path, and a regular file left unfinished is removed."""
	b = _path("path", path)
	name = os.fsdecode(b)
	fp = _libc.fopen(b, b"w")
	if not fp:
		raise GvkError(GVK_ERR_IO, "%s: cannot create (%s)" % (name, os.strerror(ctypes.get_errno())))
	err = _lib.Err()
	try:
		rc = write(fp, ctypes.byref(err))
	finally:
		failed = _libc.ferror(fp)
		ctypes.set_errno(0)
		closed = _libc.fclose(fp)
		errno = ctypes.get_errno()
	if rc >= 0 and not failed and closed == 0:
		return
	_drop(b)
	if rc < 0:
		_raise(err, rc, name)
	raise GvkError(GVK_ERR_IO, "%s: write error%s" % (name, " (%s)" % os.strerror(errno) if errno else ""))


def _record(cls, s):
	"""A namedtuple cls of the ctypes struct s: text decoded, 0/1 flags as bools."""
	out = []
	for f in cls._fields:
		v = getattr(s, f)
		if isinstance(v, bytes):
			v = os.fsdecode(v)
		elif f in _FLAGS:
			v = bool(v)
		out.append(v)
	return cls(*out)


_FLAGS = {"phased", "no_table", "few_founders", "writes", "has_panel", "whole", "seekable"}


# ---------------------------------------------------------------------------------------------- arrays
def _array(name, a, dtype, ndim=None, shape=None):
	"""a as it is, if it is a C-contiguous numpy array of dtype (else TypeError / ValueError)."""
	if a is None:
		raise TypeError("%s is required (got None)" % name)
	if not isinstance(a, np.ndarray):
		raise TypeError("%s must be a numpy array of %s, not %s" % (name, np.dtype(dtype).name, type(a).__name__))
	if a.dtype != np.dtype(dtype):
		raise TypeError("%s must have dtype %s, not %s" % (name, np.dtype(dtype).name, a.dtype))
	if ndim is not None and a.ndim != ndim:
		raise ValueError("%s must have %d dimensions, not %d (shape %s)" % (name, ndim, a.ndim, a.shape))
	if shape is not None and a.shape != tuple(shape):
		raise ValueError("%s must have shape %s, not %s" % (name, tuple(shape), a.shape))
	if not a.flags.c_contiguous:
		raise ValueError("%s must be C-contiguous (np.ascontiguousarray)" % name)
	return a


def _bytes(name, s):
	"""A sequence as bytes without copying bytes or uint8 arrays (str is encoded, as ASCII)."""
	if isinstance(s, (bytes, bytearray)):
		return s
	if isinstance(s, str):
		try:
			return s.encode("ascii")
		except UnicodeEncodeError:
			raise ValueError("%s must be ASCII" % name) from None
	if isinstance(s, np.ndarray):
		return _array(name, s, np.uint8, 1)
	if s is None:
		raise TypeError("%s is required (got None)" % name)
	raise TypeError("%s must be str, bytes or a uint8 array, not %s" % (name, type(s).__name__))


def _addr(b):
	if isinstance(b, np.ndarray):
		return b.ctypes.data
	if isinstance(b, bytearray):
		return ctypes.addressof((ctypes.c_char * len(b)).from_buffer(b)) if len(b) else 0
	return ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p).value


class _Owner:
	"""Frees a library result when the last array over its memory goes."""

	def __init__(self, ptr, free):
		self.ptr, self.free = ptr, free

	def __del__(self):
		if self.ptr:
			self.free(self.ptr)
			self.ptr = None


def _view(owner, ptr, dtype, shape):
	"""A numpy array over n items of library memory at ptr, keeping owner alive (no copy)."""
	dtype = np.dtype(dtype)
	n = int(np.prod(shape)) if len(shape) else 1
	addr = ctypes.cast(ptr, ctypes.c_void_p).value if not isinstance(ptr, int) else ptr
	if n == 0 or not addr:
		return np.zeros(shape, dtype)
	buf = (ctypes.c_char * (n * dtype.itemsize)).from_address(addr)
	buf._gvk_owner = owner
	a = np.frombuffer(buf, dtype).reshape(shape)
	a.flags.writeable = True
	return a


def _strings(ptrs, n):
	if not ptrs or n == 0:
		return None
	return [ptrs[i].decode() for i in range(n)]


def _frame(rec):
	"""A pandas DataFrame of a record array when pandas is there, else the record array."""
	try:
		import pandas
	except ImportError:
		return rec
	return pandas.DataFrame({k: rec[k] for k in rec.dtype.names})


# ---------------------------------------------------------------------------------------------- Pair-HMM
_FLAVOUR = {"fma": 0, "avx512": 0, "nofma": 1, "avx2": 1}


def _pairhmm_opts(kw):
	o = _lib.PairhmmOpts()
	_L.gvk_pairhmm_opts_init(ctypes.byref(o))
	o.threads = 0
	return _set_opts(o, kw, {"flavour": lambda o, v: setattr(o, "flavour", _choice("flavour", v, _FLAVOUR)),
	                         "double": lambda o, v: setattr(o, "force_double", int(bool(v)))})


def pairhmm(reads, quals, ins, dels, gcp, haplotypes, **opts):
	"""log10 P(read | haplotype) of every read against every haplotype, an R x H float64 array.

	reads: R sequences (str, bytes or uint8 arrays); quals, ins, dels, gcp: R uint8 arrays each (raw
	Phred values, not +33), one per read of its length; haplotypes: H sequences. Options: device
	('auto', 'cpu', 'gpu'), threads (0 = all processors, the default), flavour ('fma' / 'avx512' or
	'nofma' / 'avx2'), double (True: double precision for every pair), isa, gpu and the other fields of
	gvk_pairhmm_opts_t."""
	for name, v in (("reads", reads), ("quals", quals), ("ins", ins), ("dels", dels), ("gcp", gcp),
	                ("haplotypes", haplotypes)):
		if v is None:
			raise TypeError("%s is required (got None)" % name)
	nr, nh = _int("len(reads)", len(reads), 0, _I32[1]), _int("len(haplotypes)", len(haplotypes), 0, _I32[1])
	for name, v in (("quals", quals), ("ins", ins), ("dels", dels), ("gcp", gcp)):
		if len(v) != nr:
			raise ValueError("%s has %d entries for %d reads" % (name, len(v), nr))
	if nr == 0 or nh == 0:
		raise ValueError("pairhmm needs at least one read and one haplotype")
	keep = []
	rs = (_lib.Read * nr)()
	for i in range(nr):
		b = _bytes("reads[%d]" % i, reads[i])
		n = _int("len(reads[%d])" % i, len(b), 0, _I32[1])
		arrs = [_array("%s[%d]" % (nm, i), q[i], np.uint8, 1, (n,)) for nm, q in
		        (("quals", quals), ("ins", ins), ("dels", dels), ("gcp", gcp))]
		keep.append(b)
		r = rs[i]
		r.len, r.bases = n, _addr(b)
		r.qual, r.ins, r.del_, r.gcp = (a.ctypes.data for a in arrs)
	hs = (_lib.Hap * nh)()
	for j in range(nh):
		b = _bytes("haplotypes[%d]" % j, haplotypes[j])
		keep.append(b)
		hs[j].len, hs[j].bases = _int("len(haplotypes[%d])" % j, len(b), 0, _I32[1]), _addr(b)
	out = np.empty((nr, nh), np.float64)
	with _Engine("gvk_pairhmm", _pairhmm_opts(opts)) as e:
		_call(_L.gvk_pairhmm_batch, e.e, rs, nr, hs, nh, out.ctypes.data)
	return out


def pairhmm_file(path, **opts):
	"""Every pair of a Pair-HMM input file (gkl, group or hex format, plain or gzip), in input order:
	a record array of log10 (float64), used_double (uint8), group (uint64), read and hap (int32, the
	indices inside the group). Options as for pairhmm."""
	path = _path("path", path)
	p = ctypes.POINTER(_lib.PairhmmFileResult)()
	with _Engine("gvk_pairhmm", _pairhmm_opts(opts)) as e:
		_call(_L.gvk_pairhmm_file, e.e, path, ctypes.byref(p))
	owner = _Owner(p, _L.gvk_pairhmm_file_result_free)
	r = p.contents
	n = r.n
	out = np.empty(n, [("log10", "f8"), ("used_double", "u1"), ("group", "u8"), ("read", "i4"), ("hap", "i4")])
	for k, dt in (("log10", "f8"), ("used_double", "u1"), ("group", "u8"), ("read", "i4"), ("hap", "i4")):
		out[k] = _view(owner, getattr(r, k), dt, (n,))
	return out


# ---------------------------------------------------------------------------------------------- align
def _int32_column(name, s, n):
	"""One int32 value per pair from a number or n numbers, never wrapped (int64 for the copy)."""
	if np.ndim(s) == 0:
		return np.full(n, _int(name, s.item() if isinstance(s, np.ndarray) else s, *_I32), np.int64)
	a = np.asarray(s)
	if a.shape != (n,):
		raise ValueError("%s must be an integer or %d integers, not shape %s" % (name, n, a.shape))
	if a.dtype == object or not (np.issubdtype(a.dtype, np.integer) or a.dtype == bool):
		if a.dtype != object:
			raise ValueError("%s must be an integer or %d integers, not dtype %s" % (name, n, a.dtype))
		return np.array([_int("%s[%d]" % (name, k), x, *_I32) for k, x in enumerate(a)], np.int64)
	if n and a.dtype != bool:
		bad = np.flatnonzero((a < _I32[0]) | (a > _I32[1]))
		if len(bad):
			_int("%s[%d]" % (name, bad[0]), a[bad[0]], *_I32)
	return a.astype(np.int64)


def align(refs, alts, *, match=None, mismatch=None, gap_open=None, gap_extend=None, preset="NEW_SW_PARAMETERS",
          overhang="SOFTCLIP", java=False, **opts):
	"""GATK's Smith-Waterman of every (ref, alt) pair: (cigars, offsets, scores), a list of str and two
	int32 arrays. Scores: a GATK preset, or match / mismatch / gap_open / gap_extend (all four, each
	a number or one per pair); overhang: SOFTCLIP, INDEL, LEADING_INDEL or IGNORE (or one per pair).
	Options: raw, java, device, threads (0 = all processors, the default), isa, gpu_chunk_mb."""
	if refs is None or alts is None:
		raise TypeError("refs and alts are required (got None)")
	n = _int("len(refs)", len(refs), 0, 2 ** 63 - 1)
	if len(alts) != n:
		raise ValueError("refs has %d entries, alts %d" % (n, len(alts)))
	o = _lib.AlignOpts()
	_L.gvk_align_opts_init(ctypes.byref(o))
	o.threads = 0
	o.flavour = 1 if java else 0
	_set_opts(o, opts)
	scores = (match, mismatch, gap_open, gap_extend)
	if all(s is None for s in scores):
		par = _lib.SwParams()
		if _L.gvk_sw_preset(_name("preset", preset), ctypes.byref(par)) < 0:
			raise ValueError("unknown preset %r" % (preset,))
		scores = (par.match, par.mismatch, par.gap_open, par.gap_extend)
	elif any(s is None for s in scores):
		raise TypeError("give all of match, mismatch, gap_open, gap_extend, or none (a preset)")
	cols = []
	for name, s in zip(("match", "mismatch", "gap_open", "gap_extend"), scores):
		cols.append(_int32_column(name, s, n))
	if isinstance(overhang, (str, int)):
		overhang = [overhang] * n
	if len(overhang) != n:
		raise ValueError("overhang must be one strategy or %d" % n)
	codes = {}
	pairs = (_lib.AlignPair * n)()
	keep = []
	for k in range(n):
		rb, ab = _bytes("refs[%d]" % k, refs[k]), _bytes("alts[%d]" % k, alts[k])
		keep += (rb, ab)
		p = pairs[k]
		p.ref, p.alt = _addr(rb), _addr(ab)
		p.ref_len = _int("len(refs[%d])" % k, len(rb), 0, _I32[1])
		p.alt_len = _int("len(alts[%d])" % k, len(ab), 0, _I32[1])
		p.par.match, p.par.mismatch, p.par.gap_open, p.par.gap_extend = (int(c[k]) for c in cols)
		ov = overhang[k]
		if ov not in codes:
			c = _L.gvk_overhang_parse(_name("overhang", ov))
			if c < 0:
				raise ValueError("unknown overhang strategy %r" % (ov,))
			codes[ov] = c
		p.overhang = codes[ov]
	res = (_lib.AlignResult * max(n, 1))()
	with _Engine("gvk_align", o) as e:
		if n:
			_call(_L.gvk_align_batch, e.e, pairs, n, res)
		cigars = [ctypes.string_at(res[k].cigar, res[k].cigar_len).decode() for k in range(n)]
	offsets = np.fromiter((res[k].offset for k in range(n)), np.int32, n)
	scores_out = np.fromiter((res[k].score for k in range(n)), np.int32, n)
	return cigars, offsets, scores_out


# ---------------------------------------------------------------------------------------------- LD
_LAYOUT = {"snp_major": 0, "sample_major": 1}


class LdResult:
	"""r: the m x m matrix (r^2 or signed r, NaN where undefined; a view of the library's memory),
	n_samples, r2, and for a PLINK fileset the SNPs (chrom, id, a1, a2 lists, bp, cm arrays)."""


def _snps(owner, s, m):
	if not s.id:
		return None
	return {"chrom": _strings(s.chrom, m), "id": _strings(s.id, m), "a1": _strings(s.a1, m),
	        "a2": _strings(s.a2, m), "bp": _view(owner, s.bp, np.int64, (m,)).copy(),
	        "cm": _view(owner, s.cm, np.float64, (m,)).copy()}


def ld(source, *, table=False, layout="snp_major", chrom=None, bp=None, **opts):
	"""PLINK 1.9 LD. source: a PLINK prefix (str: prefix.bed/.bim/.fam) or a genotype matrix (int8
	0/1/2 copies of A1, -1 missing; n_snps x n_samples for layout 'snp_major', the transpose for
	'sample_major'). table=False: an LdResult with the full matrix; True: the window table, a record
	array (pandas DataFrame when pandas is there) of snp_a, snp_b, r (and the SNPs' chrom, id, bp for a
	fileset). chrom / bp place the SNPs of a matrix for the windows. Options: r2 (default True),
	keep_allele_order, window_snps, window_kb, window_cm, window_r2, inter_chr, device, threads
	(0 = all processors, the default), isa, gpu, gpu_path, gpu_mem."""
	if source is None:
		raise TypeError("source is required: a PLINK prefix or an int8 genotype matrix (got None)")
	is_path = isinstance(source, (str, bytes)) or hasattr(source, "__fspath__")
	prefix = _path("source", source) if is_path else None
	o = _lib.LdOpts()
	_L.gvk_ld_opts_init(ctypes.byref(o))
	o.threads = 0
	_set_opts(o, opts)
	keep = []
	with _Engine("gvk_ld", o) as e:
		if is_path:
			if table:
				p = ctypes.POINTER(_lib.LdTable)()
				_call(_L.gvk_ld_table_bfile, e.e, prefix, ctypes.byref(p))
			else:
				p = ctypes.POINTER(_lib.LdMatrix)()
				_call(_L.gvk_ld_matrix_bfile, e.e, prefix, ctypes.byref(p))
		else:
			g = _array("genotypes", source, np.int8, 2)
			lay = _choice("layout", layout, _LAYOUT)
			ns, nsam = (g.shape[0], g.shape[1]) if lay == 0 else (g.shape[1], g.shape[0])
			if table:
				cp = bpp = None
				if chrom is not None:
					if len(chrom) != ns:
						raise ValueError("chrom has %d names for %d SNPs" % (len(chrom), ns))
					names = [_name("chrom[%d]" % i, c) for i, c in enumerate(chrom)]
					cp = (ctypes.c_char_p * ns)(*names)
					keep.append(cp)
				if bp is not None:
					bpp = _array("bp", bp, np.int64, 1, (ns,)).ctypes.data
				p = ctypes.POINTER(_lib.LdTable)()
				_call(_L.gvk_ld_table_geno, e.e, g.ctypes.data, ns, nsam, lay, cp, bpp, ctypes.byref(p))
			else:
				p = ctypes.POINTER(_lib.LdMatrix)()
				_call(_L.gvk_ld_matrix_geno, e.e, g.ctypes.data, ns, nsam, lay, ctypes.byref(p))
		device = e.device
	r = p.contents
	if table:
		owner = _Owner(p, _L.gvk_ld_table_free)
		n = r.n
		snps = _snps(owner, r.snps, r.m)
		cols = [("snp_a", "i8"), ("snp_b", "i8"), ("r2" if r.r2 else "r", "f8")]
		a, b = _view(owner, r.snp_a, np.int64, (n,)), _view(owner, r.snp_b, np.int64, (n,))
		if snps:
			cols = [("chr_a", object), ("bp_a", "i8"), ("snp_a_id", object), ("chr_b", object), ("bp_b", "i8"),
			        ("snp_b_id", object)] + cols
		rec = np.empty(n, cols)
		rec["snp_a"], rec["snp_b"] = a, b
		rec[cols[-1][0]] = _view(owner, r.r, np.float64, (n,))
		if snps:
			ch, ids = np.array(snps["chrom"], object), np.array(snps["id"], object)
			rec["chr_a"], rec["bp_a"], rec["snp_a_id"] = ch[a], snps["bp"][a], ids[a]
			rec["chr_b"], rec["bp_b"], rec["snp_b_id"] = ch[b], snps["bp"][b], ids[b]
		return _frame(rec)
	owner = _Owner(p, _L.gvk_ld_matrix_free)
	res = LdResult()
	res.r = _view(owner, r.r, np.float64, (r.m, r.m))
	res.n_samples, res.r2, res.device = r.n_samples, bool(r.r2), device
	res.snps = _snps(owner, r.snps, r.m)
	return res


_PRUNE_MODES = {"pairwise": 0, "pairphase": 1, "vif": 2}


def ld_prune(prefix, window=50, step=5, r2=None, *, window_kb=False, mode="pairwise", **opts):
	"""PLINK 1.9 pruning of the PLINK fileset prefix (.bed/.bim/.fam), without filters: mode
	"pairwise" is --indep-pairwise window step r2 (r2 default 0.2), "pairphase" --indep-pairphase
	(r^2 from haplotype frequencies), "vif" --indep window step VIF with r2 the VIF threshold (at
	least 1; required). The window is in kb with window_kb=True. Returns (kept, removed): lists of
	variant IDs in the order of PLINK's .prune.in and .prune.out. Engine options as for ld()
	(keep_allele_order, device, threads, ...)."""
	prefix = _path("prefix", prefix)
	if mode not in _PRUNE_MODES:
		raise GvkArgError(GVK_ERR_ARG, "mode: %r; give 'pairwise', 'pairphase' or 'vif'" % (mode,))
	if r2 is None and mode == "vif":
		raise GvkArgError(GVK_ERR_ARG, "mode='vif' needs the VIF threshold (r2)")
	po = _lib.LdPruneOpts()
	_L.gvk_ld_prune_opts_init(ctypes.byref(po))
	po.window, po.step, po.window_kb = _int("window", window, 1, 2**31 - 1), _int("step", step, 1, 2**31 - 1), int(bool(window_kb))
	if r2 is not None:
		po.r2 = float(r2)
	po.mode = _PRUNE_MODES[mode]
	o = _lib.LdOpts()
	_L.gvk_ld_opts_init(ctypes.byref(o))
	_set_opts(o, opts)
	p = ctypes.POINTER(_lib.LdPruneResult)()
	with _Engine("gvk_ld", o) as e:
		_call(_L.gvk_ld_prune_bfile, e.e, prefix, ctypes.byref(po), ctypes.byref(p))
	try:
		r = p.contents
		return _strings(r.kept, r.n_kept) or [], _strings(r.removed, r.n_removed) or []
	finally:
		_L.gvk_ld_prune_free(p)


class Clump:
	"""One clump of ld_clump(): the index variant (index, chr, bp, p, file), counts (lines with p
	>= 0.05, [0.01, 0.05), [0.001, 0.01), [1e-4, 0.001), < 1e-4) and the members (p < p2) as
	(id, file, signed r^2) tuples in PLINK's SP2 order."""
	__slots__ = ("index", "chr", "bp", "p", "file", "counts", "members")

	def __repr__(self):
		return "Clump(%s, p=%g, %d members)" % (self.index, self.p, len(self.members))


def ld_clump(prefix, files, *, p1=1e-4, p2=0.01, r2=0.5, kb=250.0, allow_overlap=False, index_first=False,
             snp_field=None, p_field=None, **opts):
	"""PLINK 1.9 --clump of the PLINK fileset prefix (.bed/.bim/.fam) by one association report or
	a list of them (text with a header line), without filters. snp_field / p_field: a column name
	or a list of them, the first found winning ("SNP" / "P"). Returns (clumps, missing): the
	clumps (Clump) in the order of PLINK's .clumped, and the top variant IDs the fileset lacks.
	Engine options as for ld() (keep_allele_order, threads, ...)."""
	prefix = _path("prefix", prefix)
	if isinstance(files, (str, bytes, os.PathLike)):
		files = [files]
	paths = [_path("files", f) for f in files]
	if not paths:
		raise ValueError("files: give at least one association report")
	co = _lib.LdClumpOpts()
	_L.gvk_ld_clump_opts_init(ctypes.byref(co))
	co.p1, co.p2, co.r2, co.kb = float(p1), float(p2), float(r2), float(kb)
	co.allow_overlap, co.index_first = int(bool(allow_overlap)), int(bool(index_first))
	names = lambda v: None if v is None else (v if isinstance(v, str) else ",".join(v)).encode()
	co.snp_field, co.p_field = names(snp_field), names(p_field)
	arr = (ctypes.c_char_p * len(paths))(*paths)
	o = _lib.LdOpts()
	_L.gvk_ld_opts_init(ctypes.byref(o))
	_set_opts(o, opts)
	p = ctypes.POINTER(_lib.LdClumpResult)()
	with _Engine("gvk_ld", o) as e:
		_call(_L.gvk_ld_clump_bfile, e.e, prefix, arr, len(paths), ctypes.byref(co), ctypes.byref(p))
	try:
		r = p.contents
		out = []
		for k in range(r.n_clumps):
			c, x = r.clumps[k], Clump()
			x.index, x.chr, x.bp, x.p, x.file = c.index.decode(), c.chr.decode(), c.bp, c.p, c.file
			x.counts = tuple(c.counts)
			x.members = [(c.members[q].decode(), c.member_file[q], c.member_r2[q]) for q in range(c.n_members)]
			out.append(x)
		return out, _strings(r.missing, r.n_missing) or []
	finally:
		_L.gvk_ld_clump_free(p)


# ---------------------------------------------------------------------------------------------- the gvk ld job
_LD_SHAPE = {"table": 0, "square": 1, "square0": 2, "triangle": 3}
_DPRIME = {"none": 0, "abs": 1, "signed": 2}
_SNP_PATH = {"auto": 0, "popc": 1, "mma": 2}
# Fields holding a file name (os.PathLike and bytes taken as paths, not as text).
_LD_JOB_PATHS = ("bfile", "bed", "bim", "fam", "vcf", "out_prefix", "out", "extract", "exclude", "keep", "remove",
                 "ld_snp_list")
# List options and the count field each sets.
_LD_JOB_LISTS = {"ld_snps": "n_ld_snps", "snps": "n_snps", "clump_files": "n_clump_files",
                 "clump_field": "n_clump_field", "clump_snp_field": "n_clump_snp_field", "argv": "argc"}
# The "given" marks gvk ld sets with an option, set here by the keyword unless given themselves.
_LD_JOB_MARKS = {"out_prefix": "out_set", "r2": "stat_set", "window_snps": "window_set", "window_kb": "window_set",
                 "window_cm": "window_set", "window_r2": "window_r2_set", "prune": "prune_set",
                 "clump_files": "clump_set"}
# Set through their lists, or not from Python (the progress callback).
_LD_JOB_HIDDEN = set(_LD_JOB_LISTS.values()) | {"progress", "progress_arg"}

LdJobSummary = collections.namedtuple("LdJobSummary", [f for f, _ in _lib.LdJobSummary._fields_])
LdJobSummary.__doc__ = """What an ld_job did (gvk_ld_job_summary_t): n_snps, n_samples (after the filters), phased,
pairs (computed), written (values), n_pruned, n_clumps, no_table, few_founders, writes, threads,
kernel, out (the table's path; a pruning run's .prune.in, a clumping run's .clumped), log_path ("" when no
log is written)."""


def _set_path(o, k, v):
	setattr(o, k, None if v is None else _path(k, v))


def _set_list(o, k, v):
	"""A list of names (or one) into a char ** field and its count; the array stays with o."""
	if isinstance(v, (str, bytes, os.PathLike)):
		v = [v]
	item = _path if k in ("clump_files",) else _name
	arr = (ctypes.c_char_p * max(len(v), 1))(*[item("%s[%d]" % (k, i), x) for i, x in enumerate(v)])
	setattr(o, k, ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p)) if v else None)
	setattr(o, _LD_JOB_LISTS[k], len(v))
	o._keep.append(arr)


def _set_prune(o, k, v):
	if not isinstance(v, dict):
		raise TypeError("prune must be a dict of gvk_ld_prune_opts_t fields (window, step, r2, mode, window_kb)")
	_set_opts(o.prune, v, {"mode": lambda p, m: setattr(p, "mode", _choice("mode", m, _PRUNE_MODES)),
	                       "window_kb": _setter(_bool, "window_kb")})


def _set_named(table):
	"""An int field given by name from table, or as its number."""
	def put(o, k, v):
		setattr(o, k, v if isinstance(v, int) and v in table.values() else _choice(k, v, table))
	return put


def _ld_job_opts(kw):
	o = _lib.LdJobOpts()
	_L.gvk_ld_job_opts_init(ctypes.byref(o))
	o._keep = []
	kw = dict(kw)
	if "from" in kw:  # a Python keyword: from_=... or **{"from": ...}
		kw["from_"] = kw.pop("from")
	hidden = sorted(set(kw) & _LD_JOB_HIDDEN)
	if hidden:
		raise TypeError("option %s cannot be set from Python (a count is set by its list)" % hidden[0])
	special = dict({k: _setter(_set_path, k) for k in _LD_JOB_PATHS}, **{k: _setter(_set_list, k) for k in _LD_JOB_LISTS})
	special.update(prune=_setter(_set_prune, "prune"), shape=_setter(_set_named(_LD_SHAPE), "shape"),
	               dprime=_setter(_set_named(_DPRIME), "dprime"), gpu_path=_setter(_set_named(_SNP_PATH), "gpu_path"))
	_set_opts(o, kw, special)
	for k, mark in _LD_JOB_MARKS.items():
		if k in kw and mark not in kw:
			setattr(o, mark, 1)
	if "shape" in kw and "shape_set" not in kw:
		o.shape_set = int(o.shape != _LD_SHAPE["table"])
	return o


def ld_job_check(**opts):
	"""PLINK's rules between the options of ld_job (gvk_ld_job_opts_check), before anything is read:
	None, or GvkArgError naming the option."""
	_call(_L.gvk_ld_job_opts_check, ctypes.byref(_ld_job_opts(opts)))


def ld_job(**opts):
	"""The whole gvk ld command: reads bfile (or bed/bim/fam, or vcf), filters, runs --r / --r2
	(r2=True / False; shape 'table', 'square', 'square0', 'triangle'), pruning (prune={window, step,
	r2, mode, window_kb}) or clumping (clump_files=[...]), and writes the files at their paths
	(out_prefix + .ld / .prune.in / .clumped ..., out_prefix + .log; out: -o's file) as gvk ld does.
	Options: the fields of gvk_ld_job_opts_t by name (from_ for --from); lists (snps, ld_snps,
	clump_files, clump_field, clump_snp_field, argv: the command line the log echoes) set their
	counts, and out_prefix, r2, the windows, prune and clump_files their *_set marks. Returns an
	LdJobSummary."""
	o = _ld_job_opts(opts)
	err = _lib.Err()
	j = _L.gvk_ld_job_create(ctypes.byref(o), ctypes.byref(err))
	if not j:
		_raise(err)
	s = _lib.LdJobSummary()
	try:
		_call(_L.gvk_ld_job_run, j, None, ctypes.byref(s))
	finally:
		_L.gvk_ld_job_destroy(j)
	return _record(LdJobSummary, s)


# ---------------------------------------------------------------------------------------------- FastID
class FastidResult:
	"""top: n_queries x k record array (db, query, score), ascending score per query; hits: the
	threshold hits (db, query, score) ordered by query, score, db; pairs: scores computed; kernel,
	search_s (seconds of the search itself), device. A result of fastid_search_db also writes gvk
	fastid's tables, naming the profiles by the IDs of its databases."""

	def write_top(self, path):
		"""The top lists as gvk fastid -o writes them: 'query_id query rank db_id db score'."""
		self._write(_L.gvk_fastid_write_top, path)

	def write_hits(self, path):
		"""The threshold hits as gvk fastid -H writes them: 'query_id query db_id db score'."""
		self._write(_L.gvk_fastid_write_hits, path)

	def _write(self, fn, path):
		if self._dbs is None:
			raise ValueError("only a result of fastid_search_db has the sample IDs to write its tables")
		q, d = (db._handle for db in self._dbs)
		_write_file(path, lambda fp, err: fn(fp, self._owner.ptr, q, d, err))


def _fastid_opts(topk, mixture, threshold, opts):
	o = _lib.FastidOpts()
	_L.gvk_fastid_opts_init(ctypes.byref(o))
	o.threads = 0
	return _set_opts(o, dict(opts, topk=topk, mixture=bool(mixture), threshold=-1 if threshold is None else threshold))


def _fastid_result(p, device, dbs=None):
	"""A FastidResult over the library's result p (freed with its last view)."""
	owner = _Owner(p, _L.gvk_fastid_result_free)
	r = p.contents
	res = FastidResult()
	res.top = _view(owner, r.top, _HIT, (r.n_queries, r.k))
	res.hits = _view(owner, r.hits, _HIT, (r.n_hits,))
	res.pairs, res.device, res.kernel, res.search_s = r.pairs, device, r.kernel.decode(), r.search_s
	res._owner, res._dbs = owner, dbs
	return res


def fastid(queries, db, n_snp, *, topk=10, mixture=False, threshold=None, **opts):
	"""FastID search. queries (n_q x W) and db (n_db x W): uint64 arrays of bit-packed profiles, bit
	j of a profile in word j // 64 at bit j % 64, W = ceil(n_snp / 64). topk: the topk smallest scores
	per query; threshold: also every pair with score <= threshold. mixture: the mixture score
	pc(d AND NOT q) instead of identity pc(q XOR d). Options: device, threads (0 = all, the default),
	isa, gpu, gpu_path, gpu_mem, gpu_db_block, gpu_q_batch."""
	if n_snp is None:
		raise TypeError("n_snp is required (got None)")
	n_snp = _int("n_snp", n_snp, 1, 2 ** 32 - 1)
	w = (n_snp + 63) // 64
	q = _array("queries", queries, np.uint64, 2)
	d = _array("db", db, np.uint64, 2)
	if q.shape[1] != w or d.shape[1] != w:
		raise ValueError("profiles of %d SNPs need %d words: queries %s, db %s" % (n_snp, w, q.shape, d.shape))
	o = _fastid_opts(topk, mixture, threshold, opts)
	p = ctypes.POINTER(_lib.FastidResult)()
	with _Engine("gvk_fastid", o) as e:
		_call(_L.gvk_fastid_search, e.e, q.ctypes.data, q.shape[0], d.ctypes.data, d.shape[0], n_snp,
		      ctypes.byref(p))
		device = e.device
	return _fastid_result(p, device)


FastidDbInfo = collections.namedtuple("FastidDbInfo", [f for f, _ in _lib.FastidDbInfo._fields_])
FastidDbInfo.__doc__ = """What a FastidDb holds (gvk_fastid_db_info_t): n profiles of n_snp SNPs, has_panel and
panel_hash (the SNPs listed: a version 2 file, or made), whole (in memory), seekable, name (the file
as messages name it)."""


class FastidDb:
	"""A FastID profile database (gvk_fastid_db_t, a .fidb file as gvk fastid makes, reads and
	searches it). FastidDb.make(plink prefix or VCF), FastidDb.read(path) (whole, in memory) or
	FastidDb.open(path) (profiles read as a search goes: larger than memory). Closed by close(), at
	the end of a with block, or when the last reference goes (results of fastid_search_db keep
	their databases)."""

	def __init__(self, handle):
		self._d, self._close = handle, _L.gvk_fastid_db_close

	@classmethod
	def _new(cls, fn, *args):
		err = _lib.Err()
		d = fn(*args, ctypes.byref(err))
		if not d:
			_raise(err)
		return cls(d)

	@classmethod
	def make(cls, source, *, minor=False, threads=0):
		"""One profile per sample of a PLINK 1 fileset (prefix, or its .bed/.bim/.fam) or a VCF/BCF,
		with the SNP panel and sample IDs (gvk fastid --make-fidb). minor: the bit marks the rarer
		allele instead of ALT / A1; threads: 0 = all processors."""
		mo = _lib.FastidMakeOpts()
		_L.gvk_fastid_make_opts_init(ctypes.byref(mo))
		_set_opts(mo, {"minor": bool(minor), "threads": threads})
		return cls._new(_L.gvk_fastid_db_make, _path("source", source), ctypes.byref(mo))

	@classmethod
	def read(cls, path):
		"""A whole .fidb file (version 1 or 2) in memory."""
		return cls._new(_L.gvk_fastid_db_read, _path("path", path))

	@classmethod
	def open(cls, path):
		"""A .fidb file opened for a search a block at a time; its IDs are read after the search."""
		return cls._new(_L.gvk_fastid_db_open, _path("path", path))

	@property
	def _handle(self):
		if not self._d:
			raise ValueError("the FastidDb is closed")
		return self._d

	def close(self):
		if self._d:
			self._close(self._d)
			self._d = None

	def __del__(self):
		self.close()

	def __enter__(self):
		return self

	def __exit__(self, *a):
		self.close()

	def __len__(self):
		return self.info.n

	@property
	def info(self):
		i = _lib.FastidDbInfo()
		_L.gvk_fastid_db_info(self._handle, ctypes.byref(i))
		return _record(FastidDbInfo, i)

	def write(self, path):
		"""As a version 2 .fidb (what --make-fidb writes); needs a whole database with a panel."""
		d = self._handle  # a closed handle is refused before the file is made
		_write_file(path, lambda fp, err: _L.gvk_fastid_db_write(d, fp, err))

	def match(self, db):
		"""None when this database's profiles (as queries) can be searched against db's: the same SNP
		count and panel; else GvkError naming both files and the first SNP that differs."""
		_call(_L.gvk_fastid_db_match, self._handle, db._handle)

	def range(self, first, end):
		"""The profiles first .. end - 1 that the next search takes as its database."""
		_call(_L.gvk_fastid_db_range, self._handle, _int("first", first, *_I64), _int("end", end, *_I64))

	def read_ids(self, result):
		"""The IDs of the profiles result names, once after the search of an opened database
		(fastid_search_db does it unless read_ids=False); a whole database has them all."""
		_call(_L.gvk_fastid_db_read_ids, self._handle, result._owner.ptr)

	def id(self, i):
		"""Profile i's sample ID (its index as text in a version 1 file); None when not held."""
		s = _L.gvk_fastid_db_id(self._handle, _int("i", i, *_I64))
		return None if s is None else s.decode("utf-8", "surrogateescape")


def fastid_search_db(queries, db, *, topk=10, mixture=False, threshold=None, block=0, read_ids=True, **opts):
	"""FastID search of every profile of queries (a whole FastidDb: read or made) against the
	profiles of db (any FastidDb; an opened one is read block profiles at a time, 0: 2^24), after
	checking that their panels match. Returns a FastidResult as fastid() does, whose database indices
	count from db's first profile, with write_top and write_hits. read_ids: read the IDs of the
	profiles found from an opened db (once per opened db; False for a search of one more range).
	Options as for fastid()."""
	for name, x in (("queries", queries), ("db", db)):
		if not isinstance(x, FastidDb):
			raise TypeError("%s must be a FastidDb, not %s" % (name, type(x).__name__))
	o = _fastid_opts(topk, mixture, threshold, opts)
	block = _int("block", block, 0, 2 ** 63 - 1)
	p = ctypes.POINTER(_lib.FastidResult)()
	with _Engine("gvk_fastid", o) as e:
		_call(_L.gvk_fastid_search_db, e.e, queries._handle, db._handle, block, ctypes.byref(p))
		device = e.device
	res = _fastid_result(p, device, (queries, db))
	if read_ids:
		db.read_ids(res)
	return res


# ---------------------------------------------------------------------------------------------- CNV
_NORM = {"mean": 0, "median": 1, "quant": 2, "mode": 3, "poisson": 4}


# The text tables of gvk_cnv_write_table, in the order of their GVK_CNV_TABLE_* codes.
CNV_TABLES = ("cnvs", "segments", "cnvr", "calls_bed", "seg", "normalized", "ini", "sini", "region_cn", "lambda",
              "alpha", "seg_stat", "individual_call", "norm_factors", "params", "seg_params", "posterior")
_CNV_TABLE = {t: k for k, t in enumerate(CNV_TABLES)}
_CNV_CONTIGS = {"calls": 0, "all": 1, "none": 2}


def _cnv_table(table):
	if table not in _CNV_TABLE:
		raise ValueError("table must be one of %s, not %r" % (", ".join(CNV_TABLES), table))
	return _CNV_TABLE[table]


def cnv_table_suffix(table):
	"""The file name suffix gvk cnv --regions gives a table after its prefix (".normalized.tsv",
	...); None for the tables with a path of their own."""
	s = _L.gvk_cnv_table_suffix(_cnv_table(table))
	return None if s is None else s.decode()


def cnv_counts_write(counts, path):
	"""Counts (what cnv_counts_file returned) to path as the count matrix gvk cnv --counts reads."""
	if not isinstance(counts, _Owner) or not isinstance(counts.ptr, _lib.CnvCounts):
		raise TypeError("counts must be what cnv_counts_file returned, not %s" % type(counts).__name__)
	_write_file(path, lambda fp, err: _L.gvk_cnv_counts_write(fp, ctypes.byref(counts.ptr), err))


class CnvResult:
	"""cnvs, segments: tables (sample, chr, start, end, mean, median, CN); cnvr: CNV regions (chr,
	start, end and one copy-number column per sample); cnvr_cn: n_cnvr x N copy numbers; samples,
	seq_names, start, end of the counts; norm, sini, call, cls (N x m) and ini, cov as arrays over the
	library's memory. Tables are record arrays, or pandas DataFrames when pandas is there. The
	writers make gvk cnv's files byte for byte from the counts, the result and the options of the
	run, which the object keeps."""

	def _args(self):
		return ctypes.byref(self._counts.ptr), self._owner.ptr, ctypes.byref(self._opts)

	def write_table(self, path, table="cnvs"):
		"""One text table (a name of CNV_TABLES: "cnvs" is gvk cnv -o, "segments" --segments, "cnvr"
		--cnvr, "calls_bed" --calls-bed, "seg" --seg, the others the --regions tables; "posterior"
		needs keep_posterior=True)."""
		code = _cnv_table(table)
		_write_file(path, lambda fp, err: _L.gvk_cnv_write_table(fp, code, *self._args(), err))

	def write_regions(self, prefix):
		"""Every --regions table at prefix + its suffix (the posteriors with keep_posterior)."""
		last = "posterior" if self._opts.keep_posterior else "seg_params"
		for t in CNV_TABLES[_CNV_TABLE["normalized"]:_CNV_TABLE[last] + 1]:
			self.write_table(os.fsdecode(_path("prefix", prefix)) + cnv_table_suffix(t), t)

	def write_counts(self, path):
		"""The counts that were run, as gvk cnv --counts-out writes them."""
		cnv_counts_write(self._counts, path)

	def write_vcf(self, path, reference=None, threads=0):
		"""The CNV regions as VCF 4.3 (gvk cnv --vcf); a path ending in .gz is bgzipped and indexed.
		reference: a FASTA giving REF (None: N); threads: of the index build (0 = all processors)."""
		ref = None if reference is None else _path("reference", reference)
		_call(_L.gvk_cnv_write_vcf, _path("path", path), None, *self._args(), ref, _threads("threads", threads))

	def plot(self, prefix, *, png=True, svg=False, contigs="calls", plain_svg=False):
		"""gvk cnv --plot: prefix.SAMPLE.genome.EXT, prefix.SAMPLE.CONTIG.EXT and prefix.cohort.EXT
		(the prefix's directory must exist). contigs: "calls", "all" or "none"; PNG needs a library
		built with cairo (GvkError otherwise); plain_svg: gvk's own SVG in a build with cairo too."""
		po = _lib.CnvPlotOpts()
		_L.gvk_cnv_plot_opts_init(ctypes.byref(po))
		_set_opts(po, {"png": png, "svg": svg, "contigs": contigs, "plain_svg": plain_svg},
		          {"contigs": _setter(_set_named(_CNV_CONTIGS), "contigs"), "png": _setter(_bool, "png"),
		           "svg": _setter(_bool, "svg"), "plain_svg": _setter(_bool, "plain_svg")})
		_call(_L.gvk_cnv_plot, _path("prefix", prefix), ctypes.byref(po), None, *self._args())


def _counts_owner(c):
	return _Owner(c, lambda c: _L.gvk_cnv_counts_free(ctypes.byref(c)))


def cnv_counts_file(path, as_matrix=False, threads=0):
	"""Reads a count matrix file as gvk cnv --counts does (threads: 0 = all processors, the default);
	returns an opaque counts object for cnv()."""
	path = _path("path", path)
	threads = _threads("threads", threads)
	c = _lib.CnvCounts()
	_call(_L.gvk_cnv_counts_read_mt, path, int(bool(as_matrix)), threads, ctypes.byref(c))
	return _counts_owner(c)


def _cnv_opts(exome, kw):
	o = _lib.CnvOpts()
	_L.gvk_cnv_opts_init(ctypes.byref(o), int(bool(exome)))
	o.threads = 0

	def folds(o, v):
		v = [float(x) for x in v]
		if not 2 <= len(v) <= 16 or 1.0 not in v:
			raise ValueError("folds must be 2..16 fold changes, one of them 1 (CN2)")
		o.n_classes, o.cn2 = len(v), v.index(1.0)
		for i, x in enumerate(v):
			o.I[i] = x
	return _set_opts(o, kw, {"folds": folds,
	                         "norm_type": lambda o, v: setattr(o, "norm_type", _choice("norm_type", v, _NORM)),
	                         "size_factor": lambda o, v: setattr(o, "size_factor", _choice("size_factor", v, _NORM))})


def cnv(counts, *, samples=None, seq_names=None, start=None, end=None, exome=False, **opts):
	"""CNV calling with the cn.MOPS model. counts: an m x N (regions x samples) float64 or int64 array,
	C-ordered (region rows) or Fortran-ordered (sample runs), or what cnv_counts_file returned.
	samples: N names; seq_names (m names), start, end (int64, 1-based inclusive): the regions'
	coordinates, all three or none (a plain matrix). exome: exomecn.mops defaults. Options: the fields
	of gvk_cnv_opts_t (prior_impact, cyc, norm, norm_type, size_factor, upper, lower, min_width,
	min_read_count, use_median, seg_alpha, ..., device, threads (0 = all processors, the default)),
	folds (a list of fold changes)."""
	if counts is None:
		raise TypeError("counts is required (got None)")
	o = _cnv_opts(exome, opts)
	keep = []
	if isinstance(counts, _Owner):
		cown = counts
	else:
		if not isinstance(counts, np.ndarray):
			raise TypeError("counts must be a numpy array, not %s" % type(counts).__name__)
		if counts.dtype not in (np.dtype(np.float64), np.dtype(np.int64)):
			raise TypeError("counts must have dtype float64 or int64, not %s" % counts.dtype)
		if counts.ndim != 2:
			raise ValueError("counts must be 2-dimensional (regions x samples), not shape %s" % (counts.shape,))
		if counts.flags.c_contiguous:
			layout = 0
		elif counts.flags.f_contiguous:
			layout = 1
		else:
			raise ValueError("counts must be C- or Fortran-contiguous")
		m, N = _int("regions (rows of counts)", counts.shape[0], 0, _I32[1]), \
			_int("samples (columns of counts)", counts.shape[1], 0, _I32[1])
		a = _lib.CnvCountArrays()
		a.m, a.N, a.layout = m, N, layout
		if counts.dtype == np.float64:
			a.x = counts.ctypes.data
		else:
			a.x_int = counts.ctypes.data
		if samples is not None:
			if len(samples) != N:
				raise ValueError("samples has %d names for %d samples" % (len(samples), N))
			names = [_name("samples[%d]" % i, s) for i, s in enumerate(samples)]
			_distinct("samples", names)
			sp = (ctypes.c_char_p * N)(*names)
			keep.append(sp)
			a.samples = ctypes.addressof(sp)
		given = [x is not None for x in (seq_names, start, end)]
		if any(given) and not all(given):
			raise ValueError("give seq_names, start and end together, or none of them")
		if all(given):
			if len(seq_names) != m:
				raise ValueError("seq_names has %d names for %d regions" % (len(seq_names), m))
			qp = (ctypes.c_char_p * m)(*[_name("seq_names[%d]" % i, s) for i, s in enumerate(seq_names)])
			st, en = _array("start", start, np.int64, 1, (m,)), _array("end", end, np.int64, 1, (m,))
			keep += [qp, st, en]
			a.seq_names, a.start, a.end = ctypes.addressof(qp), st.ctypes.data, en.ctypes.data
		c = _lib.CnvCounts()
		_call(_L.gvk_cnv_counts_from_arrays, ctypes.byref(a), ctypes.byref(c))
		cown = _counts_owner(c)
	c = cown.ptr
	if c.samples:
		_distinct("samples", [c.samples[i] for i in range(c.N)])
	p = ctypes.POINTER(_lib.CnvResult)()
	with _Engine("gvk_cnv", o) as e:
		_call(_L.gvk_cnv_run, e.e, ctypes.byref(c), ctypes.byref(p))
	owner = _Owner(p, _L.gvk_cnv_result_free)
	r = p.contents
	m, N = r.m, r.N
	res = CnvResult()
	res._owner, res._counts, res._opts = owner, cown, o
	res.samples = _strings(c.samples, N)
	res.seq_names = _strings(c.seq_names, c.n_seqs)
	res.start = _view(cown, c.start, np.int64, (m,))
	res.end = _view(cown, c.end, np.int64, (m,))
	res.device = r.device_name.decode()
	for k in ("norm", "sini", "seg_stat", "call"):
		setattr(res, k, _view(owner, getattr(r, k), np.float64, (N, m)))
	res.cls = _view(owner, r.cls, np.uint8, (N, m))
	res.ini, res.cov = _view(owner, r.ini, np.float64, (m,)), _view(owner, r.cov, np.float64, (N,))
	segs = _view(owner, r.segs, _SEG, (r.n_segs,))
	cnv_idx = _view(owner, r.cnvs, np.uintp, (r.n_cnvs,))
	names = np.array(res.seq_names, object)
	sams = np.array(res.samples, object)

	def seg_table(s):
		t = np.empty(len(s), [("sample", object), ("chr", object), ("start", "i8"), ("end", "i8"), ("mean", "f8"),
		                      ("median", "f8"), ("CN", "i4")])
		t["sample"], t["chr"] = sams[s["sample"]], names[s["seq"]]
		t["start"], t["end"] = res.start[s["first"]], res.end[s["last"]]
		t["mean"], t["median"], t["CN"] = s["mean"], s["median"], s["cn"]
		return _frame(t)
	res.segments = seg_table(segs)
	res.cnvs = seg_table(segs[cnv_idx])
	reg = _view(owner, r.cnvr, _REGION, (r.n_cnvr,))
	res.cnvr_cn = _view(owner, r.cnvr_cn, np.int32, (r.n_cnvr, N))
	t = np.empty(len(reg), [("chr", object), ("start", "i8"), ("end", "i8")] + [(s, "i4") for s in res.samples])
	t["chr"], t["start"], t["end"] = names[reg["seq"]], res.start[reg["first"]], res.end[reg["last"]]
	for k, s in enumerate(res.samples):
		t[s] = res.cnvr_cn[:, k]
	res.cnvr = _frame(t)
	return res
