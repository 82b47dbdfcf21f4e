package validators

// ln is refused whatever its arguments: links are how paths escape the
// workspace. A symbolic link can point anywhere and is followed by every
// later command; a hard link shares one file between two names, so a
// write through one changes the other. Copying gives the agent the same
// content without either.

const lnReason = "ln makes links, and links are how paths escape the workspace: a symbolic link can point anywhere, " +
	"and a hard link shares one file between two names"

const lnHint = "copy the file instead (cp SRC DEST), or use the original path directly"

func registerLn() {
	register("ln", ValidatorFunc(func(*Call) error {
		return refuse(CodeForbidden, lnHint, "%s", lnReason)
	}), func() Entry {
		return Entry{Program: "ln", Operands: "refused whatever its arguments: " + lnReason + "; " + lnHint,
			Refused: []Refusal{{Flag: "(every form)", Reason: lnReason}}}
	})
}
