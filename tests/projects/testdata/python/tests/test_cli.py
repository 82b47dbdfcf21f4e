from demo.cli import main


def test_words(tmp_path, capsys):
    p = tmp_path / "t.txt"
    p.write_text("one two three\n")
    assert main(["words", str(p)]) == 0
    assert capsys.readouterr().out == "3\n"


def test_missing_file(capsys):
    assert main(["lines", "no-such-file.txt"]) == 1
    assert "No such file" in capsys.readouterr().err
