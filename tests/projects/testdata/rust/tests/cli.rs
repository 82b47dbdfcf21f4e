use std::process::Command;

fn tally(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tally"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tally");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn counts_the_sample_file() {
    let (ok, out) = tally(&["--top", "2", "tests/data/sample.txt"]);
    assert!(ok);
    assert_eq!(out, "     3 the\n     2 fox\n");
}

#[test]
fn missing_file_fails() {
    let (ok, out) = tally(&["tests/data/no-such-file.txt"]);
    assert!(!ok);
    assert!(out.is_empty());
}
