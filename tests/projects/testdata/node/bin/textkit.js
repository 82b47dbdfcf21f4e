#!/usr/bin/env node
import { readFileSync } from "node:fs";
import {
  VERSION,
  formatDuration,
  parseDuration,
  slugify,
  topWords,
  wordCount,
} from "../dist/index.js";

const usage = `usage: textkit COMMAND [ARG]...

commands:
  slug TEXT...      print the slug of TEXT
  count [FILE]      count the words of FILE (standard input without one)
  top N [FILE]      print the N most frequent words and their counts
  duration TEXT     write a duration such as 90m as hours and minutes
  version           print the version`;

function input(file) {
  return readFileSync(file ?? 0, "utf8");
}

const [command, ...args] = process.argv.slice(2);
switch (command) {
  case "slug":
    console.log(slugify(args.join(" ")));
    break;
  case "count":
    console.log(wordCount(input(args[0])));
    break;
  case "top":
    for (const [word, count] of topWords(input(args[1]), Number(args[0] ?? 10))) {
      console.log(`${count}\t${word}`);
    }
    break;
  case "duration":
    console.log(formatDuration(parseDuration(args[0] ?? "")));
    break;
  case "version":
    console.log(VERSION);
    break;
  default:
    console.error(usage);
    process.exitCode = 2;
}
