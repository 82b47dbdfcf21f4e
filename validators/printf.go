package validators

// printf is /usr/bin/printf from GNU coreutils 9.1 (commands run without a
// shell, so never bash's builtin with its -v VAR). It takes no options but
// a lone --help or --version; the FORMAT and every ARGUMENT are text it
// formats and prints. It opens no file and runs nothing, and it has no %n:
// coreutils refuses it ("%n: invalid conversion specification"), so a
// format cannot write memory either. Every argument is accepted.

func registerPrintf() {
	register("printf", ValidatorFunc(func(*Call) error { return nil }), func() Entry {
		return Entry{Program: "printf", Operands: "FORMAT [ARGUMENT]...: text, printed; every argument is accepted (coreutils printf opens no file, and has no %n)",
			Allowed: []string{"--help", "--version"}}
	})
}
