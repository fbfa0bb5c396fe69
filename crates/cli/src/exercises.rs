//! `fairground answer-key`: a teacher's answer key for generated exercises, one per student.

use std::process::ExitCode;

use fairground_sim::lesson::exercise::{answer_key, Kind};

pub const USAGE: &str = "  answer-key --kind KIND --seeds FROM-TO
               print the answer key of generated exercises as CSV, one row per seed (one
               student each): kind, seed, the link that opens it (#exercise=KIND&seed=N), the
               question, the answer, when it is decided and the worked solution.
               KIND: cfs-pick, wakeup-clamp, eevdf-eligibility; at most 500 seeds";

pub fn answer_key_cmd(args: &[String]) -> ExitCode {
    let (mut kind, mut seeds) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--kind" => kind = it.next().cloned(),
            "--seeds" => seeds = it.next().cloned(),
            other => {
                eprintln!("fairground answer-key: unknown argument {}\n{USAGE}", crate::printable(other));
                return ExitCode::from(2);
            }
        }
    }
    let (Some(kind), Some(seeds)) = (kind, seeds) else {
        eprintln!("fairground answer-key: --kind and --seeds are both needed\n{USAGE}");
        return ExitCode::from(2);
    };
    let kind = match Kind::from_name(&kind) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("fairground answer-key: {}", crate::printable(&e));
            return ExitCode::from(2);
        }
    };
    let range = seeds.split_once('-').map(|(a, b)| (a.trim().parse::<u64>(), b.trim().parse::<u64>()));
    let Some((Ok(from), Ok(to))) = range else {
        eprintln!("fairground answer-key: --seeds {}: expected FROM-TO, two whole numbers", crate::printable(&seeds));
        return ExitCode::from(2);
    };
    match answer_key(kind, from, to) {
        Ok(csv) => crate::emit(&csv),
        Err(e) => {
            eprintln!("fairground answer-key: {}", crate::printable(&e));
            ExitCode::from(2)
        }
    }
}
