"""Command line files and streams: atomic outputs, pipes, stdin, model files,
the fast score-file reader against the careful one."""

import errno
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skcalib._cli import _reader, _writer, main
from skcalib._cli._common import Progress


def _write(path, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(path, mode) as f:
        f.write(data)
    return str(path)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _env():
    return dict(os.environ, MPLBACKEND="Agg")


def _popen(args, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "skcalib", *map(str, args)], env=_env(), **kwargs
    )


@pytest.fixture
def files(tmp_path):
    rng = np.random.RandomState(0)
    y = rng.randint(0, 2, 300)
    s = rng.normal(size=300) + 2 * y
    rows = zip(s.tolist(), y.tolist(), strict=True)
    train = _write(tmp_path / "train.txt", "".join(f"{a!r} {b}\n" for a, b in rows))
    apply = _write(
        tmp_path / "apply.txt", "".join(f"{a!r}\n" for a in s[:200].tolist())
    )
    return tmp_path, train, apply


def _leftovers(folder):
    return [p for p in os.listdir(folder) if p.endswith(".part")]


# --- outputs are replaced only by complete files --------------------------------


def test_output_naming_an_input_is_refused(files, capsys):
    tmp_path, train, apply = files
    before = _read(apply)
    argv = ["calibrate", "--method", "pav-llr", "--train", train, "--apply", apply]
    assert main([*argv, "-o", apply]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "also an input (--apply)" in err
    assert _read(apply) == before
    assert main([*argv, "--save-model", train]) == 2
    assert "also an input (--train)" in capsys.readouterr().err
    assert main(["evaluate", train, "--plot", train]) == 2
    assert "also an input (SCORES)" in capsys.readouterr().err
    os.symlink(apply, tmp_path / "link.txt")  # another name of the same file
    assert main([*argv, "-o", str(tmp_path / "link.txt")]) == 2
    assert _read(apply) == before


def test_failed_write_keeps_previous_file(files, capsys, monkeypatch):
    tmp_path, train, apply = files
    out = _write(tmp_path / "out.txt", "previous contents\n")
    original = _writer._chunks

    def chunks_then_disk_full(*args):
        pieces = original(*args)
        yield next(pieces)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_writer, "_chunks", chunks_then_disk_full)
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", apply, "-q"]
    assert main([*argv, "-o", out]) == 2
    err = capsys.readouterr().err
    assert err == f"skcalib: error: {out}: cannot write: No space left on device.\n"
    assert _read(out) == b"previous contents\n"
    assert _leftovers(tmp_path) == []
    monkeypatch.setattr(_writer, "_chunks", original)
    assert main([*argv, "-o", out]) == 0
    assert len(_read(out).splitlines()) == 200


def _limited(limit):
    import resource

    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


@pytest.mark.slow
def test_file_size_limit_keeps_previous_files(files):
    """Writes past RLIMIT_FSIZE fail (EFBIG): every previous output survives."""
    tmp_path, train, apply = files
    previous = b"previous\n"
    outs = {name: _write(tmp_path / name, previous) for name in ("o.txt", "m.pkl")}
    plot = _write(tmp_path / "p.png", previous)
    argv = ["-q", "calibrate", "--method", "pav-llr", "--train", train]
    jobs = [
        [*argv, "--apply", apply, "-o", outs["o.txt"]],
        [*argv, "--save-model", outs["m.pkl"]],
        ["-q", "evaluate", train, "--plot", plot],
    ]
    procs = [
        _popen(
            a,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_limited(1000),
        )
        for a in jobs
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, err
        assert "Traceback" not in err and err.count("\n") == 1, err
        assert "cannot write: File too large" in err
    for path in [*outs.values(), plot]:
        assert _read(path) == previous
    assert _leftovers(tmp_path) == []


def test_outputs_keep_their_mode_and_special_files(files, capsys):
    tmp_path, train, apply = files
    out = _write(tmp_path / "out.txt", "old\n")
    os.chmod(out, 0o640)
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", apply, "-q"]
    assert main([*argv, "-o", out]) == 0
    assert os.stat(out).st_mode & 0o777 == 0o640
    assert main([*argv, "-o", os.devnull]) == 0  # not replaced by a regular file
    assert not os.path.isfile(os.devnull)


# --- outputs and inputs are checked before any work -------------------------------


def _no_work(monkeypatch):
    """Make every command's first step of real work fail the test."""
    from skcalib._cli import _commands, _demo, _fuse

    def work(*args, **kwargs):
        raise AssertionError("the command started its work")

    monkeypatch.setattr(_commands, "read_scores", work)
    monkeypatch.setattr(_fuse, "read_scores", work)
    monkeypatch.setattr(_demo, "_draw", work)


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["evaluate", "{train}", "--plot", "{tmp}/nodir/b.png"],
            "(--plot): '{tmp}/nodir' does not exist",
        ),
        (
            ["evaluate", "{train}", "--det", "{tmp}/det.pngg"],
            "(--det): unknown image format 'pngg'",
        ),
        (
            ["evaluate", "{train}", "--tippett", "{tmp}"],
            "is a directory (--tippett names a file",
        ),
        (
            ["evaluate", "{train}", "--plot", "{train}/b.png"],
            "(--plot): '{train}' is not a folder",
        ),
        (
            ["evaluate", "{train}", "--ci", "0.95", "--det", "{tmp}/d.xyz"],
            "(--det): unknown image format 'xyz'",
        ),
        (
            [
                "calibrate",
                "--method",
                "pav",
                "--train",
                "{train}",
                "--apply",
                "{apply}",
                "-o",
                "{tmp}/nodir/o.txt",
            ],
            "(-o): '{tmp}/nodir' does not exist",
        ),
        (
            [
                "calibrate",
                "--method",
                "pav",
                "--train",
                "{train}",
                "--save-model",
                "{tmp}",
            ],
            "is a directory (--save-model",
        ),
        (
            [
                "fuse",
                "--train",
                "{train}",
                "{train}",
                "--apply",
                "{apply}",
                "{apply}",
                "-o",
                "{tmp}/nodir/f.txt",
            ],
            "(-o): '{tmp}/nodir' does not exist",
        ),
        (
            [
                "fuse",
                "--train",
                "{train}",
                "{train}",
                "--save-model",
                "{tmp}/nodir/m.pkl",
            ],
            "(--save-model): '{tmp}/nodir' does not exist",
        ),
        (
            ["demo", "--plot", "{tmp}/demo.jpgg"],
            "(--plot): unknown image format 'jpgg'",
        ),
    ],
    ids=[
        "plot-folder",
        "det-format",
        "tippett-dir",
        "plot-under-file",
        "ci-det",
        "calibrate-o",
        "calibrate-model",
        "fuse-o",
        "fuse-model",
        "demo-plot",
    ],
)
def test_bad_outputs_are_refused_before_any_work(
    argv, message, files, capsys, monkeypatch
):
    tmp_path, train, apply = files
    fill = {"tmp": str(tmp_path), "train": train, "apply": apply}
    _no_work(monkeypatch)
    assert main([a.format(**fill) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("skcalib: error: ") and captured.err.count("\n") == 1
    assert message.format(**fill) in captured.err
    assert _leftovers(tmp_path) == []


def test_unwritable_folder_is_refused_before_any_work(files, capsys, monkeypatch):
    from skcalib._cli import _output

    tmp_path, train, apply = files
    _no_work(monkeypatch)
    if os.geteuid() != 0:  # root writes anywhere: a read-only folder cannot fail
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        assert main(["evaluate", train, "--plot", str(locked / "b.png")]) == 2
        assert "cannot write (--plot): Permission denied." in capsys.readouterr().err

    def refused(*args, **kwargs):  # what a read-only mount or an ACL answers
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(_output.tempfile, "mkstemp", refused)
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", apply]
    assert main([*argv, "-o", str(tmp_path / "o.txt")]) == 2
    assert capsys.readouterr().err == (
        f"skcalib: error: {tmp_path / 'o.txt'}: cannot write (-o): Read-only file "
        "system.\n"
    )


def test_pgf_without_latex_is_refused_before_any_work(files, capsys, monkeypatch):
    import shutil

    import matplotlib

    tex = matplotlib.rcParams["pgf.texsystem"]
    if shutil.which(tex) is not None:
        pytest.skip(f"{tex} is installed: pgf figures can be written")
    tmp_path, train, _ = files
    _no_work(monkeypatch)
    assert main(["evaluate", train, "--plot", str(tmp_path / "b.pgf")]) == 2
    err = capsys.readouterr().err
    assert f"the pgf format needs {tex}" in err and err.count("\n") == 1


def test_special_output_files_still_accepted(files, capsys):
    tmp_path, train, apply = files
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", apply]
    assert main([*argv, "-q", "-o", os.devnull]) == 0
    assert main(["evaluate", train, "-q", "--plot", str(tmp_path / "plain")]) == 0
    assert _read(tmp_path / "plain").startswith(b"\x89PNG")  # no extension: PNG
    capsys.readouterr()


def test_missing_input_is_refused_before_training(files, capsys, monkeypatch):
    from skcalib._cli import _commands, _fuse

    tmp_path, train, apply = files

    def fit(*args, **kwargs):
        raise AssertionError("trained before checking --apply")

    monkeypatch.setattr(_commands, "make_calibrator", fit)
    monkeypatch.setattr(_fuse, "_train", fit)
    missing = str(tmp_path / "aply.txt")
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", missing]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"skcalib: error: {missing}: no such file.\n"
    argv = ["fuse", "--train", train, train, "--apply", apply, missing]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"skcalib: error: {missing}: no such file.\n"
    key = str(tmp_path / "key.txt")
    assert main(["evaluate", train, "--key", key]) == 2
    assert capsys.readouterr().err == f"skcalib: error: {key}: no such file.\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_named_pipe_input_is_not_opened_by_the_check(files, capsys):
    """A FIFO is read once: the check before the work must not open it."""
    import threading

    tmp_path, train, _ = files
    fifo = str(tmp_path / "scores.fifo")
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as f:
            f.write(_read(train))

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        assert main(["evaluate", fifo, "--json"]) == 0
    finally:
        writer.join(timeout=60)
    assert json.loads(capsys.readouterr().out)["n_target"] > 0


@pytest.mark.parametrize("json_output", [False, True])
def test_metrics_are_printed_when_a_plot_fails(
    json_output, files, capsys, full_disk_for
):
    """A plot that fails at writing time (full disk) costs that plot only."""
    tmp_path, train, _ = files
    full_disk_for("det.png")
    plots = {opt: str(tmp_path / f"{opt}.png") for opt in ("plot", "det", "tippett")}
    argv = ["evaluate", train, *(a for o, p in plots.items() for a in (f"--{o}", p))]
    assert main([*argv, "--json"] if json_output else argv) == 2
    captured = capsys.readouterr()
    # progress lines may come first on a slow machine; the error is the last
    # line and the only one
    errors = [line for line in captured.err.splitlines() if "error" in line]
    assert errors == [
        f"skcalib: error: {plots['det']}: cannot write: No space left on device."
    ]
    assert captured.err.endswith(errors[0] + "\n")
    if json_output:
        out = json.loads(captured.out)
        assert out["eer"] > 0 and out["plot"] == plots["plot"]
        assert "det" not in out and out["tippett"] == plots["tippett"]
    else:
        assert "EER" in captured.out and "min Cllr" in captured.out
        assert f"Bayes error plot written to {plots['plot']}" in captured.out
        assert f"Tippett plot written to {plots['tippett']}" in captured.out
        assert "DET plot written" not in captured.out
    assert os.path.exists(plots["plot"]) and os.path.exists(plots["tippett"])
    assert not os.path.exists(plots["det"]) and _leftovers(tmp_path) == []


# --- standard output: closed pipes and full devices -----------------------------


@pytest.mark.slow
def test_closed_pipe_and_full_device(files):
    tmp_path, train, apply = files
    # the reader goes away before anything is written (like `| head -0`)
    cases = [
        ["-q", "evaluate", train, "--json"],
        ["-q", "calibrate", "--method", "pav", "--train", train, "--apply", apply],
    ]
    for argv in cases:
        proc = _popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()
        err = proc.stderr.read().decode()
        proc.wait(timeout=120)
        assert err == "", err
        assert proc.returncode == 141
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    for argv in cases:
        with open("/dev/full", "w") as full:
            proc = _popen(argv, stdout=full, stderr=subprocess.PIPE, text=True)
            _, err = proc.communicate(timeout=120)
        assert proc.returncode == 2, err
        assert err == (
            "skcalib: error: cannot write to standard output: No space left on "
            "device.\n"
        )


def test_head_of_json_through_a_shell_pipe(files):
    tmp_path, train, _ = files
    cmd = f"{sys.executable} -m skcalib -q evaluate {train} --json | head -1"
    proc = subprocess.run(
        ["sh", "-c", cmd], capture_output=True, text=True, env=_env(), timeout=120
    )
    assert proc.stdout == "{\n" and proc.stderr == ""


# --- --load-model on files that are not models ----------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b"xylophone scores\n",  # looks like a zlib header
        b"\x1f\x8b\x08\x00garbage",  # gzip
        b"\xfd7zXZ\x00\x00garbage",  # xz
        b"BZh91AY&SYgarbage",  # bz2
        b"\x80\x04garbage",  # a pickle protocol header
        b"",
        np.random.RandomState(0).bytes(4096),
    ],
    ids=["x", "gzip", "xz", "bz2", "pickle", "empty", "random"],
)
def test_load_model_rejects_non_models(content, files, capsys):
    tmp_path, _, apply = files
    model = _write(tmp_path / "model.bin", content)
    assert main(["calibrate", "--load-model", model, "--apply", apply]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"skcalib: error: {model}: not a saved skcalib model")
    assert err.count("\n") == 1 and "line 1" not in err


# --- input edge cases -------------------------------------------------------------


def test_nul_byte_is_an_error_naming_the_line(tmp_path, capsys):
    path = _write(tmp_path / "s.txt", b"1 target\n-1 nontarget\n2\x00 target\n")
    assert main(["evaluate", path]) == 2
    assert "s.txt, line 3: NUL byte" in capsys.readouterr().err


@pytest.mark.parametrize("header", [False, True])
@pytest.mark.parametrize("sep", [" ", ","])
def test_utf8_bom_is_accepted(header, sep, tmp_path, capsys):
    lines = [f"score{sep}label"] if header else []
    lines += [f"1.5{sep}target", f"-1{sep}nontarget", f"0.3{sep}1", f"-2{sep}0"]
    path = _write(tmp_path / "s.txt", b"\xef\xbb\xbf" + "\n".join(lines).encode())
    assert main(["evaluate", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n_target"], out["n_nontarget"]) == (2, 2)


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_gzip_files_are_read_transparently(files, capsys, monkeypatch):
    import gzip

    tmp_path, train, apply = files
    assert main(["evaluate", train, "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    packed = _write(tmp_path / "train.txt.gz", gzip.compress(_read(train)))
    assert main(["evaluate", packed, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert {k: got[k] for k in ("eer", "cllr", "n_target")} == {
        k: expected[k] for k in ("eer", "cllr", "n_target")
    }
    # recognized by content, not name; from stdin too; keys as well
    hidden = _write(tmp_path / "train.dat", gzip.compress(_read(train)))
    _stdin(monkeypatch, _read(packed))
    for source in (hidden, "-"):
        assert main(["evaluate", source, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["eer"] == expected["eer"]
    trials = _write(tmp_path / "t.txt", "m s1 1.0\nm s2 -1\nm s3 0.5\n")
    key = _write(
        tmp_path / "k.gz", gzip.compress(b"m s1 target\nm s2 nontarget\nm s3 1\n")
    )
    assert main(["evaluate", trials, "--key", key, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_target"] == 2
    # messages name the line of the decompressed text; damage is one line
    bad = _write(tmp_path / "bad.gz", gzip.compress(b"1 target\n2 x\n"))
    assert main(["evaluate", bad]) == 2
    assert f"{bad}, line 2: unknown label 'x'" in capsys.readouterr().err
    cut = _write(tmp_path / "cut.gz", gzip.compress(_read(train))[:-40])
    assert main(["evaluate", cut]) == 2
    err = capsys.readouterr().err
    assert err == f"skcalib: error: {cut}: damaged gzip file (it ends too early).\n"


def test_dash_reads_standard_input(files, capsys, monkeypatch):
    tmp_path, train, apply = files
    assert main(["evaluate", train, "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    _stdin(monkeypatch, _read(train))
    assert main(["evaluate", "-", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["scores"] == "-"
    assert {k: got[k] for k in ("eer", "cllr", "min_dcf")} == {
        k: expected[k] for k in ("eer", "cllr", "min_dcf")
    }
    _stdin(monkeypatch, _read(apply))
    argv = ["calibrate", "--method", "pav", "--train", train, "--apply", "-"]
    assert main(argv) == 0
    assert len(capsys.readouterr().out.splitlines()) == 200
    _stdin(monkeypatch, b"1 target\n2 x\n")
    assert main(["evaluate", "-"]) == 2
    assert "standard input, line 2: unknown label 'x'" in capsys.readouterr().err
    assert main(["calibrate", "--method", "pav", "--train", "-", "--apply", "-"]) == 2
    assert "only one input can be standard input" in capsys.readouterr().err


# --- the fast reader agrees with the careful one ------------------------------------


def _both(path, **kwargs):
    fast = _reader._read_fast(_reader._Source(path), Progress(True), **kwargs)
    careful = _reader._read_careful(_reader._Source(path), **kwargs)
    return fast, careful


def _assert_same(fast, careful):
    assert fast.kind == careful.kind and fast.delimiter == careful.delimiter
    assert fast.header == careful.header
    np.testing.assert_array_equal(fast.scores, careful.scores)
    if careful.labels is not None:
        np.testing.assert_array_equal(fast.labels, careful.labels)
    np.testing.assert_array_equal(fast.lines, careful.lines)
    for a, b in zip(fast.columns, careful.columns, strict=True):
        if b is not None:
            assert _writer._text(a) == _writer._text(b)


_LABELS = ["1", "0", "target", "nontarget", "TAR", "non", "+1", "-1", "True", "no"]
_score_text = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["inf", "-inf", "1e-320", "+3", "-0.0", "1E5"]),
)


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(
    rows=st.lists(
        st.tuples(_score_text, st.sampled_from(_LABELS)), min_size=1, max_size=30
    ),
    sep=st.sampled_from([" ", "\t", ",", " , ", "   "]),
    header=st.booleans(),
    bom=st.booleans(),
    crlf=st.booleans(),
    extras=st.lists(st.sampled_from(["", "  ", "# note", "  # x, y"]), max_size=4),
)
def test_fast_reader_matches_careful_reader(
    rows, sep, header, bom, crlf, extras, tmp_path_factory
):
    lines = [f"{s}{sep}{lab}" for s, lab in rows]
    for i, extra in enumerate(extras):  # blank and comment lines anywhere
        lines.insert((7 * i) % (len(lines) + 1), extra)
    if header:
        lines.insert(0, f"score{sep}label")
    text = ("\r\n" if crlf else "\n").join(lines)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    path = _write(tmp_path_factory.mktemp("f") / "s.txt", data)
    fast, careful = _both(path, key=False, need_labels=True)
    _assert_same(fast, careful)


def test_fast_reader_is_used_on_plain_files(tmp_path, monkeypatch, capsys):
    path = _write(tmp_path / "s.txt", "# c\n\nscore label\n1.5 1\n-2 0\n\n")

    def fail(*args, **kwargs):
        raise AssertionError("careful pass used")

    monkeypatch.setattr(_reader, "_read_careful", fail)
    monkeypatch.setattr(_reader, "_match_key_careful", fail)
    assert main(["evaluate", path, "-q", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n_target"], out["n_nontarget"]) == (1, 1)
    scores = _write(tmp_path / "t.txt", "m1 s1 1.0\nm1 s2 -1.0\nm2 s1 0.5\n")
    key = _write(tmp_path / "k.txt", "m2 s1 target\nm1 s2 nontarget\nm1 s1 target\n")
    assert main(["evaluate", scores, "--key", key, "-q", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n_target"], out["n_nontarget"]) == (2, 1)


def test_unusual_files_fall_back_to_the_careful_reader(tmp_path, capsys):
    # quoted CSV fields and names with spaces are valid but not for the fast pass
    path = _write(
        tmp_path / "s.csv", 'model,segment,score\n"a b",s1,1.0\n"a b",s2,-1\n'
    )
    key = _write(tmp_path / "k.csv", "a b,s1,target\na b,s2,nontarget\n")
    assert main(["evaluate", path, "--key", key, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["n_target"], out["n_nontarget"]) == (1, 1)


@pytest.mark.parametrize(
    "text, line, message",
    [
        # the first line decides the delimiter; the others must follow it
        ("0.5,1\n0.2 0\n0.1 0\n", 2, "no comma, but line 1 separates"),
        ("# c\nscore,label\n0.5,1\n\n0.2 0\n", 5, "no comma, but line 2"),
        ("0.5,1\n0.2,0,\n", 2, "extra column"),
        ("0.5 1\n0.2,0\n", 2, "This line has commas, but the first line"),
    ],
)
def test_one_file_one_delimiter(text, line, message, tmp_path, capsys):
    path = _write(tmp_path / "s.txt", text)
    assert main(["evaluate", path]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line {line}: " in err and message in err
    key = _write(tmp_path / "k.txt", "m,s1,target\nm s2 nontarget\n")
    trials = _write(tmp_path / "t.txt", "m s1 1.0\nm s2 -1\n")
    assert main(["evaluate", trials, "--key", key]) == 2
    assert f"{key}, line 2: no comma" in capsys.readouterr().err


def test_bosaris_matching_is_vectorized_and_exact(tmp_path):
    rng = np.random.RandomState(1)
    n = 2000
    models = [f"spk{i % 37}" for i in range(n)]
    segs = [f"seg{i // 37}-{i % 5}" for i in range(n)]
    y = rng.randint(0, 2, n).astype(bool)
    s = rng.normal(size=n)
    scores = _write(
        tmp_path / "scores.txt",
        "".join(
            f"{m} {g} {v!r}\n"
            for m, g, v in zip(models, segs, s.tolist(), strict=False)
        ),
    )
    order = rng.permutation(n)
    key = _write(
        tmp_path / "key.txt",
        "".join(
            f"{models[i]} {segs[i]} {'target' if y[i] else 'nontarget'}\n"
            for i in order
        ),
    )
    sf = _reader.read_scores(scores, Progress(True), key=key)
    np.testing.assert_array_equal(sf.labels, y)
    np.testing.assert_array_equal(sf.scores, s)
    careful = _reader._read_careful(_reader._Source(scores), key=True, need_labels=True)
    labels, n_unscored = _reader._match_key_careful(careful, _reader._Source(key))
    np.testing.assert_array_equal(labels, y)
    assert n_unscored == 0


def test_classify_labels_reports_the_first_bad_line():
    values = np.array([b"1", b"0", b"zz", b"target", b"aa"])
    is_tar, bad = _reader.classify_labels(values)
    assert bad == 2
    is_tar, bad = _reader.classify_labels(np.array([b"1", b"NON", b"Target", b"0"]))
    assert bad == -1
    np.testing.assert_array_equal(is_tar, [True, False, True, False])
