"""BrainLens CodeAct kernel: executes code blocks in one persistent namespace.

Protocol (JSON lines): requests on stdin {"id": n, "code": str, "timeout": seconds}; replies on the original
stdout {"id": n, "stdout": str, "result": str|null, "error": str|null, "timed_out": bool, "seconds": float,
"ran_to": int|null, "stopped_at": int|null, "defined": [str], "skipped": [str], "help": str|null}: on an error,
the last line of the last top-level statement that ran, the first line of the one that raised, and the names the
statements that ran bound; the imports left out (a name that does not exist here, which the block does not use);
what the environment says that helps with the error (a name a loaded module does not have: its names like it; a
call given arguments its function does not take: the function's signature; a module used without its import:
the import).
The value of a final expression statement is returned as its repr (as a notebook shows it). A block running
past its timeout is interrupted with a TimeoutError raised inside it (SIGALRM); a block that cannot be
interrupted is killed by BrainLens, which then starts a new kernel. Standard library only.
"""
import ast, contextlib, difflib, importlib.util, inspect, io, json, linecache, os, re, signal, sys, time, traceback, types

proto = os.fdopen(os.dup(1), "w", buffering=1)
requests = os.fdopen(os.dup(0), "r")
# User code sees an empty stdin (`exit()` closes sys.stdin; the protocol must survive it).
sys.stdin = open(os.devnull)
# Low-level writes to fd 1 (subprocesses, C extensions) must not corrupt the protocol: they go to stderr.
os.dup2(2, 1)
namespace = {"__name__": "__main__"}


class BlockTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise BlockTimeout("execution interrupted: the block ran past its time limit")


signal.signal(signal.SIGALRM, on_alarm)


def run_import(stmt, name, used, reply):
    # An import of a name that does not exist here, which the block never uses, is left out and the block runs
    # on (reported in "skipped"); any other failing import raises as it would.
    aliases = list(stmt.names)
    while True:
        try:
            exec(compile(ast.Module([type(stmt)(**{**stmt.__dict__, "names": aliases})], []), name, "exec"), namespace)
            return
        except ImportError as e:
            missing = getattr(e, "name", None) if isinstance(stmt, ast.Import) else None
            text = str(e)
            for a in aliases:
                bound = a.asname or a.name.split(".")[0]
                hit = (isinstance(stmt, ast.ImportFrom) and text.startswith(f"cannot import name '{a.name}'")) or (
                    missing is not None and (a.name == missing or a.name.startswith(missing + ".")))
                if hit and bound not in used:
                    module = stmt.module if isinstance(stmt, ast.ImportFrom) else None
                    reply["skipped"].append(f"{module}.{a.name}" if module else a.name)
                    aliases = [b for b in aliases if b is not a]
                    break
            else:
                raise
            if not aliases:
                return


def names_note(error):
    # A name a loaded module does not have ("cannot import name 'x' from 'm'", "module 'm' has no attribute 'x'"):
    # the module's names like it (close in spelling, or sharing a word of three letters or more), at most 8.
    # Not the whole list: Qwen2.5-Coder-1.5B imported all 44 of YASA's names when it was shown them.
    text = str(error)
    found = re.match(r"cannot import name '([^']+)' from '([^']+)'", text)
    if found:
        missing, module = found.groups()
    else:
        found = re.match(r"module '([^']+)' has no attribute '([^']+)'", text)
        if not found:
            return None
        module, missing = found.groups()
    loaded = sys.modules.get(module)
    if loaded is None:
        return None
    names = sorted(n for n in dir(loaded) if not n.startswith("_"))
    words = [w for w in re.split(r"[_\W]+", missing.lower()) if len(w) >= 3]
    like = difflib.get_close_matches(missing, names, n=5, cutoff=0.7)
    like += [n for n in names if n not in like and any(w in n.lower() for w in words)]
    if not like:
        return f"{module} has no {missing}, and no name in it like that one."
    return f"{module} has no {missing}; names in it like that one: {', '.join(like[:8])}."


ALIASES = {"np": "numpy", "pd": "pandas", "plt": "matplotlib.pyplot", "sp": "scipy"}


def import_note(error):
    # A name that is a module of this environment (or its usual alias), used without its import: the import.
    missing = getattr(error, "name", None)
    module = ALIASES.get(missing, missing)
    if not missing or not re.fullmatch(r"[A-Za-z_][\w.]*", module):
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    installed = spec is not None and "site-packages" in (spec.origin or "") + "".join(spec.submodule_search_locations or [])
    if not (module.split(".")[0] in sys.stdlib_module_names or installed):
        return None
    line = f"import {module}" if module == missing else f"import {module} as {missing}"
    return f"{missing} is not defined in this session; it is a module here: add `{line}`."


def signature_note(error, tb, code, name):
    # A call given arguments its function does not take ("psd_array_welch() got an unexpected keyword argument
    # 'method'"): the function's signature. The callee is the call of that name on the failing line of the
    # block, evaluated where it failed when it is a plain name or attribute chain (nothing is called).
    found = re.match(r"(?:[\w.]+\.)?(\w+)\(\) (?:got an unexpected keyword|got multiple values|missing \d+ required"
                     r"|takes \d+ positional|takes from|takes exactly)", str(error))
    frames = [(f, line) for f, line in traceback.walk_tb(tb) if f.f_code.co_filename == name]
    if not found or not frames:
        return None
    frame, line = frames[-1]
    chain = lambda e: isinstance(e, ast.Name) or (isinstance(e, ast.Attribute) and chain(e.value))
    calls = [
        c for c in ast.walk(ast.parse(code)) if isinstance(c, ast.Call) and c.lineno <= line <= c.end_lineno
        and chain(c.func) and (c.func.id if isinstance(c.func, ast.Name) else c.func.attr) == found.group(1)
    ]
    if not calls:
        return None
    func = min(calls, key=lambda c: c.end_lineno - c.lineno).func
    # A callee that cannot be evaluated or has no signature raises: the caller then gives no help.
    callee = eval(compile(ast.Expression(func), name, "eval"), frame.f_globals, frame.f_locals)
    sig = inspect.signature(callee)
    # Without annotations: the parameters and their defaults are what a caller needs.
    plain = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    text = f"{ast.unparse(func)}{sig.replace(parameters=plain, return_annotation=inspect.Signature.empty)}"
    return f"the signature is {text if len(text) <= 700 else text[:700] + ' …'}."


def run(code, name, reply):
    # The block's source is known to linecache, so a traceback shows the failing line itself.
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name, "exec")
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    # One top-level statement at a time (what exec of the whole block does), so a failure says which lines
    # ran before it and what they defined; those stay in the namespace.
    before = {k: id(v) for k, v in namespace.items()}
    try:
        for stmt in tree.body:
            reply["stopped_at"] = stmt.lineno
            run_import(stmt, name, used, reply) if isinstance(stmt, (ast.Import, ast.ImportFrom)) else exec(
                compile(ast.Module([stmt], []), name, "exec"), namespace)
            reply["ran_to"] = stmt.end_lineno
    finally:
        # What the statements that ran bound, once, however the block ended.
        reply["defined"] = [
            k for k, v in namespace.items()
            if not k.startswith("_") and before.get(k) != id(v) and not isinstance(v, types.ModuleType)
        ][-12:]
    reply["stopped_at"] = None
    if last is not None:
        reply["stopped_at"] = last.body.lineno
        value = eval(compile(last, name, "eval"), namespace)
        reply["stopped_at"] = None
        if value is not None:
            return repr(value)
    return None


for line in requests:
    try:
        req = json.loads(line)
    except ValueError:
        continue
    out = io.StringIO()
    reply = {"id": req.get("id"), "result": None, "error": None, "timed_out": False, "ran_to": None,
             "stopped_at": None, "defined": [], "skipped": [], "help": None}
    block = f"<block {req.get('id')}>"
    t0 = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, float(req.get("timeout", 150)))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            reply["result"] = run(req.get("code", ""), block, reply)
    except BlockTimeout as e:
        reply["timed_out"] = True
        reply["error"] = str(e)
    except BaseException:
        etype, value, tb = sys.exc_info()
        # Drop the driver's own frames from the traceback.
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        if isinstance(value, SyntaxError) and tb is not None and tb.tb_frame.f_code.co_filename == ast.__file__:
            # Raised while parsing the block: the block's line and caret, not the parser's frames.
            tb = None
        reply["error"] = "".join(traceback.format_exception(etype, value, tb))
        try:
            # Help is a courtesy: whatever goes wrong finding it, the reply goes out without it.
            if isinstance(value, (ImportError, AttributeError)):
                reply["help"] = names_note(value)
            elif isinstance(value, NameError):
                reply["help"] = import_note(value)
            elif isinstance(value, TypeError):
                reply["help"] = signature_note(value, tb, req.get("code", ""), block)
        except Exception:
            reply["help"] = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    reply["stdout"] = out.getvalue()
    reply["seconds"] = time.monotonic() - t0
    proto.write(json.dumps(reply) + "\n")
