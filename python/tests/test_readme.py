"""The README's Python quick start runs as written and prints what it shows (a doctest)."""
import doctest

from conftest import REPO


def test_readme_quick_start():
    text = (REPO / "README.md").read_text()
    section = text.split("## Python quick start", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    session = block[block.index(">>>"):]
    test = doctest.DocTestParser().get_doctest(session, {}, "README quick start", str(REPO / "README.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 6
