"""tfxc: convert TensorFlow models to Ascend GE IR (.air) from Python.

A thin ctypes layer over the C library libtfxc (include/tfxc/tfxc.h, docs/API.md); no
compiled extension. Models may be paths or bytes, e.g. straight from TensorFlow:

    import tfxc
    air = tfxc.convert(graph_def.SerializeToString(), input_shape="x:1,224,224,3")
    report = tfxc.check("model.pb")                 # the precheck report, as a dict
    why = tfxc.explain("model.pb", "dense/MatMul")  # how one node was converted

Errors raise tfxc.Error, which carries the status and every error diagnostic with its
location (file, line, column). The library is found through $TFXC_LIBRARY, next to this
package in an installed tree (<libdir>/libtfxc.so.0), or on the loader's search path.
"""

import ctypes
import ctypes.util
import json
import os

__all__ = ["Error", "Diagnostic", "Session", "convert", "check", "explain", "explain_pass",
           "explain_scope", "explain_rule",
           "version"]

OK, FAILED, MISUSE, INPUT, RULES, NOMEM = range(6)
_STATUS = {OK: "ok", FAILED: "failed", MISUSE: "misuse", INPUT: "input", RULES: "rules",
           NOMEM: "nomem"}
_SEVERITY = {0: "error", 1: "warning", 2: "note"}


def _find_library():
    env = os.environ.get("TFXC_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../../..", "../../../lib", "../../../.."):  # <libdir>/tfxc/python/tfxc
        cand = os.path.normpath(os.path.join(here, rel, "libtfxc.so.0"))
        if os.path.exists(cand):
            return cand
    return ctypes.util.find_library("tfxc") or "libtfxc.so.0"


class _CDiag(ctypes.Structure):
    _fields_ = [("severity", ctypes.c_int), ("file", ctypes.c_char_p),
                ("line", ctypes.c_uint), ("column", ctypes.c_uint),
                ("message", ctypes.c_char_p), ("rule", ctypes.c_char_p)]


class _CRunInfo(ctypes.Structure):
    _fields_ = [("ran", ctypes.c_int), ("status", ctypes.c_int), ("exit_code", ctypes.c_int),
                ("mapped", ctypes.c_int), ("fused", ctypes.c_int), ("wrote", ctypes.c_int),
                ("nodes_failed", ctypes.c_ulong), ("errors_not_reported", ctypes.c_ulong),
                ("warnings_not_reported", ctypes.c_ulong)]


_DIAG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(_CDiag))
_lib = ctypes.CDLL(_find_library())
_c = ctypes.c_char_p
_vp = ctypes.c_void_p
_sz = ctypes.c_size_t
for _name, _args, _res in [
    ("tfxc_version", [], _c),
    ("tfxc_open", [ctypes.POINTER(_vp)], ctypes.c_int),
    ("tfxc_close", [_vp], None),
    ("tfxc_free", [_vp], None),
    ("tfxc_set_diagnostic_handler", [_vp, _DIAG_FN, _vp], None),
    ("tfxc_errmsg", [_vp], _c),
    ("tfxc_set_option", [_vp, _c, _c], ctypes.c_int),
    ("tfxc_add_rules_path", [_vp, _c], ctypes.c_int),
    ("tfxc_add_rules_buffer", [_vp, _c, _c, _sz], ctypes.c_int),
    ("tfxc_load_model_path", [_vp, _c], ctypes.c_int),
    ("tfxc_load_model_buffer", [_vp, _c, _c, _sz], ctypes.c_int),
    ("tfxc_run", [_vp, _c], ctypes.c_int),
    ("tfxc_emit", [_vp, _c, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_emit_file", [_vp, _c, _c], ctypes.c_int),
    ("tfxc_report_json", [_vp, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_explain", [_vp, _c, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_explain_scope", [_vp, _c, _c, _c, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_explain_rule", [_vp, _c, _c, _c, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_last_run", [_vp, ctypes.POINTER(_CRunInfo)], ctypes.c_int),
    ("tfxc_list_passes", [_vp, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
    ("tfxc_pass_timing", [_vp, ctypes.POINTER(_vp), ctypes.POINTER(_sz)], ctypes.c_int),
]:
    _f = getattr(_lib, _name)
    _f.argtypes = _args
    _f.restype = _res


def version():
    """The library's version string, e.g. "0.1.0"."""
    return _lib.tfxc_version().decode()


class Diagnostic:
    """One message of the library: severity ("error", "warning", "note"), file, line and
    column (0 when unknown), message, and rule (the rule source line, or None)."""

    def __init__(self, severity, file, line, column, message, rule):
        self.severity, self.file, self.line, self.column = severity, file, line, column
        self.message, self.rule = message, rule

    def location(self):
        if self.file and self.line and self.column:
            return "%s:%d:%d" % (self.file, self.line, self.column)
        if self.file and self.line:
            return "%s:%d" % (self.file, self.line)
        return self.file or ""

    def __str__(self):
        loc = self.location()
        return "%s%s: %s" % (loc + ": " if loc else "", self.severity, self.message)

    __repr__ = __str__


class Error(Exception):
    """A failed call: status ("failed", "misuse", "input", "rules", "nomem"), exit_code (what
    the tfxc command would exit with), diagnostics (the error diagnostics of the call, in
    order) and, from the first of them, file, line and column."""

    def __init__(self, status, message, diagnostics):
        self.status = _STATUS.get(status, "unknown")
        self.exit_code = {OK: 0, MISUSE: 2, INPUT: 3, RULES: 4}.get(status, 1)
        self.diagnostics = [d for d in diagnostics if d.severity == "error"]
        first = self.diagnostics[0] if self.diagnostics else None
        self.file = first.file if first else None
        self.line = first.line if first else 0
        self.column = first.column if first else 0
        Exception.__init__(self, message or self.status)


def _s(v):
    return v.encode() if isinstance(v, str) else v


def _opt_value(v):
    if v is True:
        return "1"
    if v is False:
        return "0"
    return str(v)


class Session:
    """A conversion session (tfxc_session). Use as a context manager, or call close()."""

    def __init__(self):
        h = _vp()
        st = _lib.tfxc_open(ctypes.byref(h))
        if st != OK:
            raise Error(st, "cannot open a session (out of memory)", [])
        self._h = h
        self.diagnostics = []  # every diagnostic of the session's calls
        self._call = []

        def on_diag(_user, p):
            d = p.contents
            dec = lambda b: b.decode("utf-8", "replace") if b is not None else None
            diag = Diagnostic(_SEVERITY.get(d.severity, "error"), dec(d.file), d.line,
                              d.column, dec(d.message), dec(d.rule))
            self._call.append(diag)
            self.diagnostics.append(diag)

        self._fn = _DIAG_FN(on_diag)  # kept alive as long as the session
        _lib.tfxc_set_diagnostic_handler(self._h, self._fn, None)

    def close(self):
        if self._h:
            _lib.tfxc_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _check(self, st, ok=(OK,)):
        call, self._call = self._call, []
        if st not in ok:
            raise Error(st, _lib.tfxc_errmsg(self._h).decode("utf-8", "replace"), call)
        return st

    def set_option(self, name, value):
        """Sets a convert option: set_option("input-shape", "x:1,3"); input_shape=... in the
        module functions. Lists repeat the option (limit, W)."""
        name = name.replace("_", "-")
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            self._check(_lib.tfxc_set_option(self._h, _s(name), _s(_opt_value(v))))

    def add_rules(self, rules):
        """A path (str or os.PathLike), or (name, bytes) for rule text or a pack in memory."""
        if isinstance(rules, (tuple, list)) and len(rules) == 2 and isinstance(rules[1], (bytes, bytearray)):
            name, data = rules
            data = bytes(data)
            self._check(_lib.tfxc_add_rules_buffer(self._h, _s(name), data, len(data)))
        elif isinstance(rules, (bytes, bytearray)):
            data = bytes(rules)
            self._check(_lib.tfxc_add_rules_buffer(self._h, b"rules.tfxb", data, len(data)))
        else:
            self._check(_lib.tfxc_add_rules_path(self._h, _s(os.fspath(rules))))

    def load_model(self, model, name=None):
        """A path, or the bytes of a serialized GraphDef / MetaGraphDef / SavedModel (binary
        or text format); name stands for the model's path (default "model.pb")."""
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            self._check(_lib.tfxc_load_model_buffer(self._h, _s(name or "model.pb"), data, len(data)))
        else:
            self._check(_lib.tfxc_load_model_path(self._h, _s(os.fspath(model))))

    def run(self, last=None, failed_ok=False):
        """Runs the pipeline through pass last (None: through lowering). Returns the status
        name; with failed_ok, a failed conversion returns "failed" instead of raising."""
        st = _lib.tfxc_run(self._h, _s(last) if last else None)
        return _STATUS[self._check(st, (OK, FAILED) if failed_ok else (OK,))]

    def emit(self, kind="air"):
        """The output of the last run as bytes: air, ge-pbtxt, ge-json, dot, tf-pbtxt."""
        p, n = _vp(), _sz()
        self._check(_lib.tfxc_emit(self._h, _s(kind), ctypes.byref(p), ctypes.byref(n)))
        try:
            return ctypes.string_at(p, n.value)
        finally:
            _lib.tfxc_free(p)

    def emit_file(self, kind, path):
        self._check(_lib.tfxc_emit_file(self._h, _s(kind), _s(os.fspath(path))))

    def _json(self, fn, *args):
        p, n = _vp(), _sz()
        self._check(fn(self._h, *args, ctypes.byref(p), ctypes.byref(n)))
        try:
            return json.loads(ctypes.string_at(p, n.value).decode("utf-8"))
        finally:
            _lib.tfxc_free(p)

    def report(self):
        """The --report JSON of the last run, as a dict."""
        return self._json(_lib.tfxc_report_json)

    def explain(self, node):
        """How one node of the last run was converted, as a dict."""
        return self._json(_lib.tfxc_explain, _s(node))

    def _text(self, fn, *args):
        p, n = _vp(), _sz()
        self._check(fn(self._h, *args, ctypes.byref(p), ctypes.byref(n)))
        try:
            return ctypes.string_at(p, n.value).decode("utf-8")
        finally:
            _lib.tfxc_free(p)

    def last_run(self):
        """What the last run did, as a dict: ran, status (a name), exit_code, mapped (the op
        mapping ran), fused (scope fusion ran), wrote (write_outputs), nodes_failed,
        errors_not_reported and warnings_not_reported (past the 1000 diagnostics handed over)."""
        info = _CRunInfo()
        self._check(_lib.tfxc_last_run(self._h, ctypes.byref(info)))
        return {"ran": bool(info.ran), "status": _STATUS.get(info.status, "unknown"),
                "exit_code": info.exit_code, "mapped": bool(info.mapped),
                "fused": bool(info.fused), "wrote": bool(info.wrote),
                "nodes_failed": info.nodes_failed,
                "errors_not_reported": info.errors_not_reported,
                "warnings_not_reported": info.warnings_not_reported}

    def list_passes(self):
        """The table `tfxc --list-passes` prints, with the session's disable_pass applied."""
        return self._text(_lib.tfxc_list_passes)

    def pass_timing(self):
        """The table `tfxc --time-passes` prints for the last run."""
        return self._text(_lib.tfxc_pass_timing)

    def explain_scope(self, scope, function=None, passes=None):
        """Why scope fusion did (not) match scope: the text `tfxc explain --scope` prints.
        passes: a list (or comma string) of the scope passes to look at (None: all)."""
        if passes is not None and not isinstance(passes, str):
            passes = ",".join(passes)
        return self._text(_lib.tfxc_explain_scope, _s(scope), _s(function) if function else None,
                          _s(passes) if passes is not None else None)

    def explain_rule(self, rule, function=None, node=None):
        """The text `tfxc explain --rule RULE [--node NODE]` prints: a scope pass's report, or
        whether a dataflow rewrite matches at node."""
        return self._text(_lib.tfxc_explain_rule, _s(rule), _s(function) if function else None,
                          _s(node) if node else None)


def _session(model, rules, name, options):
    s = Session()
    try:
        for k, v in options.items():
            s.set_option(k, v)
        for r in rules or ():
            s.add_rules(r)
        s.load_model(model, name)
    except Exception:
        s.close()
        raise
    return s


def convert(model, rules=(), emit="air", name=None, **options):
    """Converts model (a path or bytes) and returns the output of kind emit as bytes.
    rules: paths, or (name, bytes) pairs; options: the convert command's options, with "_"
    for "-" (input_shape="x:1,3", out_nodes=..., disable_pass=..., passthrough_unknown=True,
    limit=["nodes=1000"], W=["error"], ...)."""
    s = _session(model, rules, name, dict(options, emit=emit))
    with s:
        s.run()
        return s.emit(emit)


def check(model, rules=(), name=None, **options):
    """The precheck (tfxc --check): runs the op mapping and returns the report as a dict; its
    "result" is "failed" when some op cannot be converted (no exception for that)."""
    s = _session(model, rules, name, dict(options, check=True))
    with s:
        s.run(failed_ok=True)
        return s.report()


def explain(model, node, rules=(), name=None, **options):
    """How node was converted (mapping, CANN type, rule and site, failure cause, hint, or the
    fused node that absorbed it), as a dict."""
    s = _session(model, rules, name, dict(options, check=True))
    with s:
        s.run(failed_ok=True)
        return s.explain(node)


def explain_pass(model, pass_name, rules=(), name=None, **options):
    """What a scope fusion pass did (as `tfxc explain --rule PASS`, as data): the pass's entry
    of the scope fusion report for each graph where it ran (layers with the scopes that
    matched, the SELECT verdict, sub_type changes, results, dropped results), as a list of
    dicts, each with a "graph" key ("" = the main graph). Raises Error(misuse) when no graph
    ran a pass of that name."""
    s = _session(model, rules, name, dict(options))
    with s:
        s.run("scope-fusion")
        rep = s.report().get("scope_fusion") or {}
        out = []
        for g in rep.get("graphs", []):
            for p in g.get("passes", []):
                if p.get("pass") == pass_name:
                    out.append(dict(p, graph=g.get("graph", "")))
        if not out:
            ran = sorted({p.get("pass") for g in rep.get("graphs", []) for p in g.get("passes", [])})
            raise Error(MISUSE, "no scope fusion pass '%s' ran (passes that ran: %s)"
                        % (pass_name, ", ".join(ran) or "none"), [])
        return out


def explain_scope(model, scope, function=None, passes=None, rules=(), name=None, **options):
    """Why scope fusion did (not) match scope, as the text `tfxc explain --scope` prints."""
    s = _session(model, rules, name, dict(options))
    with s:
        return s.explain_scope(scope, function, passes)


def explain_rule(model, rule, node=None, function=None, rules=(), name=None, **options):
    """A scope pass's report, or why a dataflow rewrite does (not) match at node, as the text
    `tfxc explain --rule RULE [--node NODE]` prints."""
    s = _session(model, rules, name, dict(options))
    with s:
        return s.explain_rule(rule, function, node)
