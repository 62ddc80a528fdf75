"""Running a command's ``main`` in-process and checking how it refuses a bad argument."""

from __future__ import annotations

import contextlib
import io


def run_main(main, argv, **kwargs) -> tuple[int, str, str]:
    """Call ``main(argv, **kwargs)``; return (exit status, stdout, stderr).

    A ``SystemExit`` (argparse, ``parser.error``) gives its code; a returned int is the
    status; anything else returned counts as 0.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv, **kwargs)
        except SystemExit as e:
            status = e.code
    return (status if isinstance(status, int) else 0), out.getvalue(), err.getvalue()


def assert_refused(result, *fragments: str) -> None:
    """Exit status 2, nothing on stdout, and one line on stderr holding every fragment."""
    status, out, err = result
    assert status == 2, (status, out, err)
    assert out == "", f"partial output before the error:\n{out}"
    lines = err.strip("\n").splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
