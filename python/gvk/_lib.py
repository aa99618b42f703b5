# SPDX-License-Identifier: MIT
"""Finding and loading libgvk.so, and the C declarations of include/gvk.h as ctypes types.

The structs are declared here by hand and checked, when the library is loaded, against the layout
the library reports (gvk_struct_layout): size, and offset and size of every field by name. Any
difference refuses the import, naming the struct and the field. Adding a field to a struct of
gvk.h takes two lines: the field in gvk.h (the library's table is generated from the header), and
the same field here, at its place in the class's _fields_ with its ctypes type (a C name that is
a Python keyword gets a trailing underscore: del_, lambda_)."""
import ctypes
import ctypes.util
import keyword
import os
import sys

c_int, c_int32, c_int64, c_uint32, c_uint64 = ctypes.c_int, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64
c_double, c_float, c_size_t, c_void_p, c_char_p = ctypes.c_double, ctypes.c_float, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
P = ctypes.POINTER


class Err(ctypes.Structure):
	_c_name_ = "gvk_err_t"
	_fields_ = [("code", c_int), ("msg", ctypes.c_char * 512)]


class Log(ctypes.Structure):
	_c_name_ = "gvk_log_t"
	_fields_ = [("fn", c_void_p), ("arg", c_void_p), ("level", c_int)]


class PairhmmOpts(ctypes.Structure):
	_c_name_ = "gvk_pairhmm_opts_t"
	_fields_ = [(n, c_int) for n in ("flavour", "force_double", "threads", "device", "isa", "gpu")] + [
		("gpu_min_work", c_double)] + [(n, c_int) for n in ("shared", "merge_wait_us", "merge_max_pairs",
	                                                        "merge_contexts", "gpu_profile", "gpu_gap_share")] + [
		("log", Log), ("server", c_char_p), ("gpu_lock", c_char_p)]


class Read(ctypes.Structure):
	_c_name_ = "gvk_read_t"
	_fields_ = [("len", c_int), ("bases", c_void_p), ("qual", c_void_p), ("ins", c_void_p), ("del_", c_void_p),
	            ("gcp", c_void_p)]


class Hap(ctypes.Structure):
	_c_name_ = "gvk_hap_t"
	_fields_ = [("len", c_int), ("bases", c_void_p)]


class PairhmmFileResult(ctypes.Structure):
	_c_name_ = "gvk_pairhmm_file_result_t"
	_fields_ = [("n", c_size_t), ("log10", P(c_double)), ("used_double", P(ctypes.c_uint8)), ("group", P(c_uint64)),
	            ("read", P(c_int32)), ("hap", P(c_int32))]


class LdOpts(ctypes.Structure):
	_c_name_ = "gvk_ld_opts_t"
	_fields_ = [(n, c_int) for n in ("r2", "keep_allele_order", "threads", "device", "isa", "gpu", "gpu_path")] + [
		("gpu_mem", c_size_t), ("window_snps", c_int64), ("window_kb", c_double), ("window_cm", c_double),
		("window_r2", c_double), ("inter_chr", c_int), ("log", Log)]


class LdSnps(ctypes.Structure):
	_c_name_ = "gvk_ld_snps_t"
	_fields_ = [("chrom", P(c_char_p)), ("id", P(c_char_p)), ("a1", P(c_char_p)), ("a2", P(c_char_p)),
	            ("bp", P(c_int64)), ("cm", P(c_double))]


class LdMatrix(ctypes.Structure):
	_c_name_ = "gvk_ld_matrix_t"
	_fields_ = [("m", c_int64), ("n_samples", c_int64), ("r2", c_int), ("r", P(c_double)), ("snps", LdSnps)]


class LdTable(ctypes.Structure):
	_c_name_ = "gvk_ld_table_t"
	_fields_ = [("n", c_size_t), ("snp_a", P(c_int64)), ("snp_b", P(c_int64)), ("r", P(c_double)), ("r2", c_int),
	            ("m", c_int64), ("n_samples", c_int64), ("snps", LdSnps)]


class LdPruneOpts(ctypes.Structure):
	_c_name_ = "gvk_ld_prune_opts_t"
	_fields_ = [("window", c_int64), ("window_kb", c_int), ("step", c_int64), ("r2", c_double), ("mode", c_int)]


class LdPruneResult(ctypes.Structure):
	_c_name_ = "gvk_ld_prune_result_t"
	_fields_ = [("n_kept", c_int64), ("n_removed", c_int64), ("kept", P(c_char_p)), ("removed", P(c_char_p))]


class LdJobOpts(ctypes.Structure):
	_c_name_ = "gvk_ld_job_opts_t"
	_fields_ = [(n, c_char_p) for n in ("bfile", "bed", "bim", "fam", "vcf", "out_prefix")] + [
		("out_set", c_int), ("out", c_char_p)] + [(n, c_int) for n in (
			"stat_set", "r2", "shape", "shape_set", "bin", "gz", "spaces", "with_freqs", "in_phase", "dcol", "dprime",
			"yes_really", "inter_chr", "phased")] + [
		("window_snps", c_int64), ("window_kb", c_double), ("window_cm", c_double), ("window_r2", c_double),
		("window_set", c_int), ("window_r2_set", c_int), ("ld_snp", c_char_p), ("ld_snp_list", c_char_p),
		("ld_snps", P(c_char_p)), ("n_ld_snps", c_int)] + [
		(n, c_char_p) for n in ("chr", "extract", "exclude", "keep", "remove", "from_", "to")] + [
		("snps", P(c_char_p)), ("n_snps", c_int)] + [(n, c_double) for n in ("geno", "maf", "mind", "hwe")] + [
		(n, c_int) for n in ("hwe_midp", "keep_allele_order", "make_founders", "nonfounders", "allow_extra_chr",
		                     "double_id", "prune_set")] + [
		("prune", LdPruneOpts), ("clump_set", c_int), ("clump_files", P(c_char_p)), ("n_clump_files", c_int)] + [
		(n, c_double) for n in ("clump_p1", "clump_p2", "clump_r2", "clump_kb")] + [
		(n, c_int) for n in ("clump_allow_overlap", "clump_index_first", "clump_verbose")] + [
		("clump_field", P(c_char_p)), ("clump_snp_field", P(c_char_p)), ("n_clump_field", c_int),
		("n_clump_snp_field", c_int)] + [(n, c_int) for n in ("threads", "device", "isa", "gpu_path")] + [
		("gpu_mem", c_size_t), ("verbose", c_int), ("argc", c_int), ("argv", P(c_char_p)), ("log", Log),
		("progress", c_void_p), ("progress_arg", c_void_p)]


class LdJobSummary(ctypes.Structure):
	_c_name_ = "gvk_ld_job_summary_t"
	_fields_ = [("n_snps", c_int64), ("n_samples", c_int64), ("phased", c_int), ("pairs", c_uint64),
	            ("written", c_uint64), ("n_pruned", c_int64), ("n_clumps", c_int64), ("no_table", c_int),
	            ("few_founders", c_int), ("writes", c_int), ("threads", c_int), ("kernel", ctypes.c_char * 320),
	            ("out", ctypes.c_char * 4096), ("log_path", ctypes.c_char * 4096)]


class LdClumpOpts(ctypes.Structure):
	_c_name_ = "gvk_ld_clump_opts_t"
	_fields_ = [("p1", c_double), ("p2", c_double), ("r2", c_double), ("kb", c_double), ("allow_overlap", c_int),
	            ("index_first", c_int), ("snp_field", c_char_p), ("p_field", c_char_p)]


class LdClump(ctypes.Structure):
	_c_name_ = "gvk_ld_clump_t"
	_fields_ = [("index", c_char_p), ("chr", c_char_p), ("bp", c_int64), ("p", c_double), ("file", c_int),
	            ("counts", c_int64 * 5), ("n_members", c_int64), ("members", P(c_char_p)), ("member_file", P(c_int)),
	            ("member_r2", P(c_double))]


class LdClumpResult(ctypes.Structure):
	_c_name_ = "gvk_ld_clump_result_t"
	_fields_ = [("n_clumps", c_int64), ("clumps", P(LdClump)), ("n_top", c_int64), ("n_missing", c_int64),
	            ("missing", P(c_char_p))]


class FastidOpts(ctypes.Structure):
	_c_name_ = "gvk_fastid_opts_t"
	_fields_ = [("mixture", c_int), ("topk", c_int), ("threshold", c_int64), ("threads", c_int), ("device", c_int),
	            ("isa", c_int), ("gpu", c_int), ("gpu_path", c_int), ("gpu_mem", c_size_t), ("gpu_db_block", c_int64),
	            ("gpu_q_batch", c_int64), ("log", Log)]


class FastidResult(ctypes.Structure):
	_c_name_ = "gvk_fastid_result_t"
	_fields_ = [("n_queries", c_size_t), ("k", c_int), ("top", c_void_p), ("hits", c_void_p), ("n_hits", c_size_t),
	            ("pairs", c_uint64), ("search_s", c_double), ("kernel", ctypes.c_char * 320)]


class FastidDbInfo(ctypes.Structure):
	_c_name_ = "gvk_fastid_db_info_t"
	_fields_ = [("n", c_int64), ("n_snp", c_uint32), ("has_panel", c_int), ("panel_hash", c_uint64), ("whole", c_int),
	            ("seekable", c_int), ("name", c_char_p)]


class FastidMakeOpts(ctypes.Structure):
	_c_name_ = "gvk_fastid_make_opts_t"
	_fields_ = [("minor", c_int), ("threads", c_int)]


class SwParams(ctypes.Structure):
	_c_name_ = "gvk_sw_params_t"
	_fields_ = [("match", c_int32), ("mismatch", c_int32), ("gap_open", c_int32), ("gap_extend", c_int32)]


class AlignOpts(ctypes.Structure):
	_c_name_ = "gvk_align_opts_t"
	_fields_ = [(n, c_int) for n in ("flavour", "raw", "threads", "device", "isa", "gpu", "gpu_chunk_mb")] + [
		("gpu_min_work", c_double), ("log", Log), ("server", c_char_p), ("gpu_lock", c_char_p),
		("server_min_work", c_double)]


class AlignPair(ctypes.Structure):
	_c_name_ = "gvk_align_pair_t"
	_fields_ = [("ref", c_void_p), ("alt", c_void_p), ("ref_len", c_int32), ("alt_len", c_int32), ("par", SwParams),
	            ("overhang", c_int32)]


class AlignResult(ctypes.Structure):
	_c_name_ = "gvk_align_result_t"
	_fields_ = [("cigar", c_void_p), ("cigar_len", c_int32), ("offset", c_int32), ("score", c_int32)]


class CnvOpts(ctypes.Structure):
	_c_name_ = "gvk_cnv_opts_t"
	_fields_ = [("n_classes", c_int), ("I", c_double * 16), ("cn2", c_int), ("prior_impact", c_double), ("cyc", c_int),
	            ("norm", c_int), ("norm_type", c_int), ("size_factor", c_int), ("norm_qu", c_double),
	            ("qu_size_factor", c_double), ("upper", c_double), ("lower", c_double), ("min_width", c_int),
	            ("min_read_count", c_double), ("use_median", c_int), ("seg_alpha", c_double), ("seg_delta", c_int),
	            ("seg_max_int", c_int), ("seg_cyber_weight", c_double), ("keep_posterior", c_int),
	            ("log_domain", c_int), ("threads", c_int), ("device", c_int), ("gpu", c_int), ("exact_ties", c_int),
	            ("gpu_min_work", c_double), ("log", Log)]


class CnvCounts(ctypes.Structure):
	_c_name_ = "gvk_cnv_counts_t"
	_fields_ = [("m", c_int), ("N", c_int), ("n_seqs", c_int), ("samples", P(c_char_p)), ("seq_names", P(c_char_p)),
	            ("seq_off", P(c_int)), ("start", P(c_int64)), ("end", P(c_int64)), ("x", P(c_double)),
	            ("is_matrix", c_int), ("seq_len", P(c_int64))]


class CnvCountArrays(ctypes.Structure):
	_c_name_ = "gvk_cnv_count_arrays_t"
	_fields_ = [("m", c_int), ("N", c_int), ("x", c_void_p), ("x_int", c_void_p), ("layout", c_int),
	            ("samples", c_void_p), ("seq_names", c_void_p), ("start", c_void_p), ("end", c_void_p)]


_CNV_D = ("norm", "cov", "lambda_", "alpha", "post", "sini", "ini")


class CnvResult(ctypes.Structure):
	_c_name_ = "gvk_cnv_result_t"
	_fields_ = [("m", c_int), ("N", c_int), ("n", c_int)] + [(n, P(c_double)) for n in _CNV_D] + [
		("cls", P(ctypes.c_uint8)), ("seg_stat", P(c_double)), ("call", P(c_double)), ("segs", c_void_p),
		("n_segs", c_size_t), ("cnvs", P(c_size_t)), ("n_cnvs", c_size_t), ("cnvr", c_void_p), ("n_cnvr", c_size_t),
		("cnvr_cn", P(c_int))] + [(n, P(c_double)) for n in ("nf_size", "nf_before", "nf_final", "nf_u", "nf_bw",
	                                                         "nf_mode")] + [
		("nf_nuser", P(c_int)), ("nf_excluded", P(c_int)), ("sp_eps", P(c_double)), ("sp_sd", P(c_double)),
		("sp_q95", P(c_double)), ("sp_ninit", P(c_int)), ("t_norm", c_double), ("t_em", c_double),
		("t_seg", c_double), ("t_call", c_double), ("device_name", ctypes.c_char * 64)]


class CnvPlotOpts(ctypes.Structure):
	_c_name_ = "gvk_cnv_plot_opts_t"
	_fields_ = [("png", c_int), ("svg", c_int), ("contigs", c_int), ("plain_svg", c_int)]


STRUCTS = [v for v in list(globals().values()) if isinstance(v, type) and issubclass(v, ctypes.Structure)
           and hasattr(v, "_c_name_")]


class Layout(ctypes.Structure):
	_c_name_ = "gvk_layout_t"
	_fields_ = [("type", c_char_p), ("field", c_char_p), ("offset", c_size_t), ("size", c_size_t)]


STRUCTS.append(Layout)


def library_layout(lib):
	"""{struct name: (sizeof, {field: (offset, size)})} as the library reports it."""
	fn = getattr(lib, "gvk_struct_layout", None)
	if fn is None:
		raise ImportError("gvk: %s has no gvk_struct_layout(): a library older than this package" % lib._name)
	fn.restype, fn.argtypes = P(Layout), [P(c_size_t)]
	n = c_size_t()
	t = fn(ctypes.byref(n))
	out = {}
	for k in range(n.value):
		e = t[k]
		name = e.type.decode()
		if e.field is None:
			out[name] = (e.size, {})
		else:
			out[name][1][e.field.decode()] = (e.offset, e.size)
	return out


def ctypes_fields(cls):
	"""(sizeof, {C field name: (offset, size)}) of a ctypes struct."""
	return ctypes.sizeof(cls), {n.rstrip("_") if keyword.iskeyword(n.rstrip("_")) else n:
	                            (getattr(cls, n).offset, getattr(cls, n).size) for n, *_ in cls._fields_}


def check_layout(c_name, py_name, mine, table, path):
	"""Raises ImportError naming the struct and the field where mine = (sizeof, {field: (offset,
	size)}) differs from the library's table."""
	def fail(what):
		raise ImportError("gvk: %s (%s in gvk/_lib.py) does not match %s: %s; the package and the library "
		                  "come from different versions of gvk.h" % (c_name, py_name, path, what))
	if c_name not in table:
		fail("the library has no struct of that name")
	size, fields = table[c_name]
	msize, mfields = mine
	for f, (off, sz) in fields.items():
		if f not in mfields:
			fail("field %s (offset %d, %d bytes) is missing here" % (f, off, sz))
		if mfields[f] != (off, sz):
			fail("field %s is at offset %d with %d bytes here, at %d with %d bytes in the library" % (
				f, mfields[f][0], mfields[f][1], off, sz))
	for f in mfields:
		if f not in fields:
			fail("field %s is declared here but not in the library's struct" % f)
	if msize != size:
		fail("sizeof is %d here and %d in the library" % (msize, size))


def check_structs(lib, path, structs=None):
	"""Every ctypes struct of this module (or the given ones) against the library's layout."""
	table = library_layout(lib)
	for cls in structs if structs is not None else STRUCTS:
		check_layout(cls._c_name_, cls.__name__, ctypes_fields(cls), table, path)
	return table


def _recorded_prefix():
	"""The library that `cmake --install` put beside this copy of the package (share/gvk/python has
	libgvk.path, the installed library's path)."""
	here = os.path.dirname(os.path.abspath(__file__))
	try:
		with open(os.path.join(here, "..", "libgvk.path")) as f:
			return [f.read().strip()]
	except OSError:
		return []


def _candidates():
	env = os.environ.get("GVK_LIBRARY")
	if env:
		return [env]  # an explicit choice: nothing else is tried
	here = os.path.dirname(os.path.abspath(__file__))
	out = [os.path.join(here, "..", "..", "build", "src", "libgvk.so")]  # python/gvk in the source tree
	out += _recorded_prefix()
	try:
		from . import _install_path  # written by the wheel build: the library it saw
		out += list(_install_path.LIBRARIES)
	except ImportError:
		pass
	# cmake --install with the environment's prefix (a venv, a conda environment).
	out += [os.path.join(sys.prefix, d, "libgvk.so") for d in ("lib", "lib64")]
	found = ctypes.util.find_library("gvk")
	if found:
		out.append(found)
	for d in ("/usr/local/lib", "/usr/local/lib64", "/usr/lib", "/usr/lib64", "/usr/lib/x86_64-linux-gnu"):
		out.append(os.path.join(d, "libgvk.so"))
	return out


def load():
	tried = []
	for path in _candidates():
		if os.sep in path and not os.path.exists(path):
			tried.append(path + " (missing)")
			continue
		try:
			lib = ctypes.CDLL(path)
		except OSError as e:
			tried.append("%s (%s)" % (path, e))
			continue
		real = os.path.realpath(path) if os.sep in path else path
		check_structs(lib, real)
		_declare(lib)
		return lib, real
	raise ImportError("gvk: libgvk.so not found; set GVK_LIBRARY to its path. Tried: " + "; ".join(tried))


def libc():
	"""The C library's stdio, for the FILE * the library's writers take: the streams must come from
	the C library libgvk writes them with, the process's (dlopen(NULL) reaches its symbols)."""
	c = ctypes.CDLL(None, use_errno=True)
	for name, res, args in (("fopen", c_void_p, [c_char_p, c_char_p]), ("fclose", c_int, [c_void_p]),
	                        ("ferror", c_int, [c_void_p])):
		f = getattr(c, name)
		f.restype, f.argtypes = res, args
	return c


def _declare(lib):
	E = P(Err)
	sig = {
		"gvk_version": (c_char_p, []), "gvk_features": (ctypes.c_uint, []), "gvk_feature_string": (c_int, [c_char_p, c_size_t]),
		"gvk_strerror": (c_char_p, [c_int]),
		"gvk_pairhmm_opts_init": (None, [P(PairhmmOpts)]), "gvk_pairhmm_create": (c_void_p, [P(PairhmmOpts), E]),
		"gvk_pairhmm_destroy": (None, [c_void_p]), "gvk_pairhmm_device_name": (c_char_p, [c_void_p]),
		"gvk_pairhmm_batch": (c_int, [c_void_p, c_void_p, c_int, c_void_p, c_int, c_void_p, E]),
		"gvk_pairhmm_file": (c_int, [c_void_p, c_char_p, P(P(PairhmmFileResult)), E]),
		"gvk_pairhmm_file_result_free": (None, [P(PairhmmFileResult)]),
		"gvk_ld_opts_init": (None, [P(LdOpts)]), "gvk_ld_create": (c_void_p, [P(LdOpts), E]),
		"gvk_ld_destroy": (None, [c_void_p]), "gvk_ld_device_name": (c_char_p, [c_void_p]),
		"gvk_ld_matrix_bfile": (c_int, [c_void_p, c_char_p, P(P(LdMatrix)), E]),
		"gvk_ld_table_bfile": (c_int, [c_void_p, c_char_p, P(P(LdTable)), E]),
		"gvk_ld_matrix_geno": (c_int, [c_void_p, c_void_p, c_int64, c_int64, c_int, P(P(LdMatrix)), E]),
		"gvk_ld_table_geno": (c_int, [c_void_p, c_void_p, c_int64, c_int64, c_int, c_void_p, c_void_p,
		                              P(P(LdTable)), E]),
		"gvk_ld_matrix_free": (None, [P(LdMatrix)]), "gvk_ld_table_free": (None, [P(LdTable)]),
		"gvk_ld_prune_opts_init": (None, [P(LdPruneOpts)]),
		"gvk_ld_prune_bfile": (c_int, [c_void_p, c_char_p, P(LdPruneOpts), P(P(LdPruneResult)), E]),
		"gvk_ld_prune_free": (None, [P(LdPruneResult)]),
		"gvk_ld_clump_opts_init": (None, [P(LdClumpOpts)]),
		"gvk_ld_clump_bfile": (c_int, [c_void_p, c_char_p, P(c_char_p), c_int, P(LdClumpOpts), P(P(LdClumpResult)), E]),
		"gvk_ld_clump_free": (None, [P(LdClumpResult)]),
		"gvk_fastid_opts_init": (None, [P(FastidOpts)]), "gvk_fastid_create": (c_void_p, [P(FastidOpts), E]),
		"gvk_fastid_destroy": (None, [c_void_p]), "gvk_fastid_device_name": (c_char_p, [c_void_p]),
		"gvk_fastid_search": (c_int, [c_void_p, c_void_p, c_size_t, c_void_p, c_size_t, c_uint32,
		                              P(P(FastidResult)), E]),
		"gvk_fastid_result_free": (None, [P(FastidResult)]),
		"gvk_sw_preset": (c_int, [c_char_p, P(SwParams)]), "gvk_overhang_parse": (c_int, [c_char_p]),
		"gvk_align_opts_init": (None, [P(AlignOpts)]), "gvk_align_create": (c_void_p, [P(AlignOpts), E]),
		"gvk_align_destroy": (None, [c_void_p]), "gvk_align_device_name": (c_char_p, [c_void_p]),
		"gvk_align_batch": (c_int, [c_void_p, c_void_p, c_size_t, c_void_p, E]),
		"gvk_cnv_opts_init": (None, [P(CnvOpts), c_int]), "gvk_cnv_create": (c_void_p, [P(CnvOpts), E]),
		"gvk_cnv_destroy": (None, [c_void_p]),
		"gvk_cnv_counts_read_mt": (c_int, [c_char_p, c_int, c_int, P(CnvCounts), E]),
		"gvk_cnv_counts_from_arrays": (c_int, [P(CnvCountArrays), P(CnvCounts), E]),
		"gvk_cnv_counts_free": (None, [P(CnvCounts)]),
		"gvk_cnv_run": (c_int, [c_void_p, P(CnvCounts), P(P(CnvResult)), E]),
		"gvk_cnv_result_free": (None, [P(CnvResult)]),
		# files (gvk_files_t) is always NULL here: the writers open their paths themselves.
		"gvk_ld_job_opts_init": (None, [P(LdJobOpts)]), "gvk_ld_job_opts_check": (c_int, [P(LdJobOpts), E]),
		"gvk_ld_job_create": (c_void_p, [P(LdJobOpts), E]), "gvk_ld_job_destroy": (None, [c_void_p]),
		"gvk_ld_job_run": (c_int, [c_void_p, c_void_p, P(LdJobSummary), E]),
		"gvk_cnv_table_suffix": (c_char_p, [c_int]),
		"gvk_cnv_write_table": (c_int, [c_void_p, c_int, P(CnvCounts), P(CnvResult), P(CnvOpts), E]),
		"gvk_cnv_counts_write": (c_int, [c_void_p, P(CnvCounts), E]),
		"gvk_cnv_write_vcf": (c_int, [c_char_p, c_void_p, P(CnvCounts), P(CnvResult), P(CnvOpts), c_char_p, c_int, E]),
		"gvk_cnv_plot_opts_init": (None, [P(CnvPlotOpts)]),
		"gvk_cnv_plot": (c_int, [c_char_p, P(CnvPlotOpts), c_void_p, P(CnvCounts), P(CnvResult), P(CnvOpts), E]),
		"gvk_fastid_make_opts_init": (None, [P(FastidMakeOpts)]),
		"gvk_fastid_db_make": (c_void_p, [c_char_p, P(FastidMakeOpts), E]),
		"gvk_fastid_db_read": (c_void_p, [c_char_p, E]), "gvk_fastid_db_open": (c_void_p, [c_char_p, E]),
		"gvk_fastid_db_close": (None, [c_void_p]), "gvk_fastid_db_info": (None, [c_void_p, P(FastidDbInfo)]),
		"gvk_fastid_db_write": (c_int, [c_void_p, c_void_p, E]),
		"gvk_fastid_db_match": (c_int, [c_void_p, c_void_p, E]),
		"gvk_fastid_db_range": (c_int, [c_void_p, c_int64, c_int64, E]),
		"gvk_fastid_db_read_ids": (c_int, [c_void_p, P(FastidResult), E]),
		"gvk_fastid_db_id": (c_char_p, [c_void_p, c_int64]),
		"gvk_fastid_search_db": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t, P(P(FastidResult)), E]),
		"gvk_fastid_write_top": (c_int, [c_void_p, P(FastidResult), c_void_p, c_void_p, E]),
		"gvk_fastid_write_hits": (c_int, [c_void_p, P(FastidResult), c_void_p, c_void_p, E]),
	}
	for name, (res, args) in sig.items():
		f = getattr(lib, name)
		f.restype, f.argtypes = res, args
