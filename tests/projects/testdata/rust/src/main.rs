use std::io::Read;
use std::process::ExitCode;
use std::{env, fs, io};

const USAGE: &str = "usage: tally [--top N] [--stats] [FILE...]";

fn main() -> ExitCode {
    let mut n = 10;
    let mut show_stats = false;
    let mut files = Vec::new();
    let mut args = env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--top" => match args.next().and_then(|v| v.parse().ok()) {
                Some(v) => n = v,
                None => {
                    eprintln!("tally: --top needs a number\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--stats" => show_stats = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => files.push(arg),
        }
    }

    let mut text = String::new();
    if files.is_empty() {
        if let Err(e) = io::stdin().read_to_string(&mut text) {
            eprintln!("tally: stdin: {e}");
            return ExitCode::FAILURE;
        }
    }
    for f in &files {
        match fs::read_to_string(f) {
            Ok(s) => text.push_str(&s),
            Err(e) => {
                eprintln!("tally: {f}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }

    if show_stats {
        let s = tally::stats(&text);
        println!("{} lines, {} words, {} chars", s.lines, s.words, s.chars);
    }
    let counts = tally::frequencies(&text);
    for (word, count) in tally::top(&counts, n) {
        println!("{count:>6} {word}");
    }
    ExitCode::SUCCESS
}
