package validators

import (
	"strings"
	"sync"
)

// Every configuration key of git is one of three kinds: it makes git run
// a program, it names a file git reads or writes, or neither. For the
// first two, GitKeyRules also say how boxed git is kept from obeying a
// value a repository, a run or a user chose (How):
//
//   - "env": the runner's environment overrides it (GIT_CONFIG_COUNT
//     entries, GIT_EDITOR, GIT_PAGER …), wherever it is set;
//   - "repo": the git validator checks it where it is set (gitConfigRisk,
//     gitPathKeys, includes) and refuses or asks;
//   - "protected": git reads it only from the system, global or command
//     configuration, which boxed git does not have (GIT_CONFIG_NOSYSTEM,
//     a HOME new for every run);
//   - "network": only commands that reach another repository use it, and
//     those ask a person;
//   - "command": only git commands vtexec refuses use it (Probe is one);
//   - "box": a file git only reads, which the kernel box keeps to what a
//     command may read anyway.
//
// The rules are matched against `git help --config` of the installed git
// by a test, which fails on any key no rule covers.

// GitKeyRule classifies the keys Pattern matches: a key as git help
// --config prints it (<name> for a part the user chooses), or section.*
// for a whole section whose keys neither run a program nor name a file.
type GitKeyRule struct {
	Pattern string
	Kind    string // "program", "file" or "neither"
	How     string // for program and file keys, see above
	Probe   string // for How "command": a git command line that would use the key
}

// GitKeyRules are the rules, most specific first.
var GitKeyRules = []GitKeyRule{
	// Programs the runner's environment overrides.
	{"core.editor", "program", "env", ""},     // GIT_EDITOR
	{"sequence.editor", "program", "env", ""}, // GIT_SEQUENCE_EDITOR
	{"core.pager", "program", "env", ""},      // GIT_PAGER
	{"pager.<cmd>", "program", "env", ""},     // GIT_PAGER comes first
	{"core.gitProxy", "program", "env", ""},   // GIT_PROXY_COMMAND
	{"core.askPass", "program", "env", ""},
	{"core.fsmonitor", "program", "env", ""},
	{"core.fsmonitorHookVersion", "neither", "", ""},
	{"fsmonitor.socketDir", "file", "env", ""}, // no fsmonitor at all
	{"fsmonitor.allowRemote", "neither", "", ""},
	{"core.hooksPath", "file", "env", ""},
	{"protocol.<name>.allow", "program", "env", ""}, // protocol.ext.allow=never
	{"protocol.allow", "program", "env", ""},
	{"protocol.version", "neither", "", ""},
	{"safe.bareRepository", "file", "env", ""},
	{"log.showSignature", "program", "env", ""},
	{"diff.submodule", "program", "env", ""},
	{"status.submoduleSummary", "program", "env", ""},
	{"submodule.recurse", "program", "env", ""},

	// Programs and files the git validator checks where they are set.
	{"diff.external", "program", "repo", ""},
	{"diff.<driver>.textconv", "program", "repo", ""},
	{"diff.<driver>.command", "program", "repo", ""},
	{"filter.<driver>.clean", "program", "repo", ""},
	{"filter.<driver>.smudge", "program", "repo", ""},
	{"merge.<driver>.driver", "program", "repo", ""},
	{"gpg.program", "program", "repo", ""},
	{"gpg.<format>.program", "program", "repo", ""},
	{"gpg.ssh.defaultKeyCommand", "program", "repo", ""},
	{"interactive.diffFilter", "program", "repo", ""},
	{"core.alternateRefsCommand", "program", "repo", ""},
	{"credential.helper", "program", "repo", ""},
	{"credential.<url>.*", "program", "repo", ""},
	{"core.sshCommand", "program", "repo", ""},
	{"remote.<name>.uploadpack", "program", "repo", ""},
	{"remote.<name>.receivepack", "program", "repo", ""},
	{"remote.<name>.vcs", "program", "repo", ""},
	{"submodule.<name>.update", "program", "repo", ""},
	{"http.cookieFile", "file", "repo", ""},
	{"core.excludesFile", "file", "repo", ""},
	{"core.attributesFile", "file", "repo", ""},
	{"mailmap.file", "file", "repo", ""},
	{"diff.orderFile", "file", "repo", ""},
	{"blame.ignoreRevsFile", "file", "repo", ""},
	{"format.signatureFile", "file", "repo", ""},
	{"commit.template", "file", "repo", ""},
	{"gpg.ssh.allowedSignersFile", "file", "repo", ""},
	{"gpg.ssh.revocationFile", "file", "repo", ""},
	{"init.templateDir", "file", "repo", ""},
	{"format.outputDirectory", "file", "repo", ""},
	{"include.path", "file", "repo", ""},
	{"includeIf.<condition>.path", "file", "repo", ""},
	{"core.worktree", "file", "repo", ""},

	// Files git only reads, as the box lets it.
	{"user.signingKey", "file", "box", ""},

	// Read only from the system, global or command configuration.
	{"uploadpack.packObjectsHook", "program", "protected", ""},
	{"safe.directory", "file", "protected", ""},
	{"trace2.*", "file", "protected", ""},

	// Used only by commands that reach another repository, which ask.
	{"http.sslCert", "file", "network", ""},
	{"http.sslKey", "file", "network", ""},
	{"http.sslCAInfo", "file", "network", ""},
	{"http.sslCAPath", "file", "network", ""},
	{"http.proxySSLCert", "file", "network", ""},
	{"http.proxySSLKey", "file", "network", ""},
	{"http.proxySSLCAInfo", "file", "network", ""},
	{"http.pinnedPubkey", "file", "network", ""},
	{"http.<url>.*", "file", "network", ""},
	{"fetch.fsck.skipList", "file", "network", ""},
	{"receive.fsck.skipList", "file", "network", ""},
	{"receive.*", "neither", "", ""}, // the receiving side of a push into this repository
	{"uploadpack.*", "neither", "", ""},
	{"uploadpackfilter.*", "neither", "", ""},
	{"uploadarchive.*", "neither", "", ""},
	{"lsrefs.*", "neither", "", ""},
	{"bundle.*", "neither", "", ""},
	{"bundle.<id>.*", "neither", "", ""},
	{"bundle.<id>.uri", "neither", "", ""},
	{"remotes.<group>", "neither", "", ""},
	{"url.*", "neither", "", ""},

	// Used only by git commands vtexec refuses.
	{"alias.*", "program", "command", "git st"},
	{"difftool.*", "program", "command", "git difftool"},
	{"diff.tool", "program", "command", "git difftool"},
	{"diff.guitool", "program", "command", "git difftool"},
	{"mergetool.*", "program", "command", "git mergetool"},
	{"merge.tool", "program", "command", "git mergetool"},
	{"merge.guitool", "program", "command", "git mergetool"},
	{"browser.*", "program", "command", "git help -w log"},
	{"web.browser", "program", "command", "git web--browse x"},
	{"help.browser", "program", "command", "git help -w log"},
	{"help.htmlPath", "file", "command", "git help -w log"},
	{"man.*", "program", "command", "git help log"},
	{"instaweb.*", "program", "command", "git instaweb"},
	{"sendemail.*", "program", "command", "git send-email x.patch"},
	{"sendemail.<identity>.*", "program", "command", "git send-email x.patch"},
	{"imap.*", "program", "command", "git imap-send"},
	{"gitcvs.*", "program", "command", "git cvsserver"},
	{"gitweb.*", "file", "command", "git instaweb"},
	{"gui.*", "program", "command", "git gui"},
	{"guitool.*", "program", "command", "git gui"},
	{"credentialCache.*", "neither", "", ""},
	{"credentialStore.*", "neither", "", ""},
	{"fsck.skipList", "file", "command", "git fsck"},
	{"fsck.*", "neither", "", ""},
	{"maintenance.*", "neither", "", ""},
	{"completion.*", "neither", "", ""},

	// Sections none of whose keys runs a program or names a file.
	{"add.*", "neither", "", ""}, {"advice.*", "neither", "", ""}, {"am.*", "neither", "", ""},
	{"apply.*", "neither", "", ""}, {"author.*", "neither", "", ""}, {"blame.*", "neither", "", ""},
	{"branch.*", "neither", "", ""}, {"checkout.*", "neither", "", ""}, {"clean.*", "neither", "", ""},
	{"clone.*", "neither", "", ""}, {"color.*", "neither", "", ""}, {"column.*", "neither", "", ""},
	{"commit.*", "neither", "", ""}, {"commitGraph.*", "neither", "", ""}, {"committer.*", "neither", "", ""},
	{"extensions.*", "neither", "", ""}, {"fastimport.*", "neither", "", ""}, {"feature.*", "neither", "", ""},
	{"gc.*", "neither", "", ""}, {"grep.*", "neither", "", ""},
	{"help.*", "neither", "", ""}, {"i18n.*", "neither", "", ""}, {"index.*", "neither", "", ""},
	{"log.*", "neither", "", ""},
	{"mailinfo.*", "neither", "", ""}, {"mailmap.*", "neither", "", ""},
	{"notes.*", "neither", "", ""}, {"pack.*", "neither", "", ""}, {"pretty.<name>", "neither", "", ""},
	{"pull.*", "neither", "", ""}, {"push.*", "neither", "", ""},
	{"rebase.*", "neither", "", ""}, {"repack.*", "neither", "", ""}, {"rerere.*", "neither", "", ""},
	{"revert.*", "neither", "", ""}, {"showBranch.*", "neither", "", ""}, {"sparse.*", "neither", "", ""},
	{"splitIndex.*", "neither", "", ""}, {"ssh.*", "neither", "", ""}, {"stash.*", "neither", "", ""},
	{"status.*", "neither", "", ""}, {"tag.*", "neither", "", ""},
	{"tar.*", "neither", "", ""}, {"transfer.*", "neither", "", ""}, {"user.*", "neither", "", ""},
	{"versionsort.*", "neither", "", ""}, {"worktree.*", "neither", "", ""},
}

// riskySections are the sections where a key no explicit rule names is
// not taken for harmless by its section's wildcard: the keys there that
// run programs or name files are many, and a new one must be classified.
var riskySections = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"core": true, "diff": true, "filter": true, "merge": true, "gpg": true,
		"credential": true, "remote": true, "submodule": true, "http": true, "protocol": true, "include": true,
		"includeif": true, "init": true, "interactive": true, "format": true, "fetch": true, "fsmonitor": true}
})

// harmlessRiskyKeys are the keys of the risky sections that neither run a
// program nor name a file (git 2.39's git help --config, reviewed).
var harmlessRiskyKeys = []string{
	"core.abbrev", "core.alternateRefsPrefixes", "core.autocrlf", "core.bare", "core.bigFileThreshold",
	"core.checkRoundtripEncoding", "core.checkStat", "core.commentChar", "core.commitGraph", "core.compression",
	"core.createObject", "core.deltaBaseCacheLimit", "core.eol", "core.fileMode", "core.filesRefLockTimeout",
	"core.fsync", "core.fsyncMethod", "core.fsyncObjectFiles", "core.hideDotFiles", "core.ignoreCase",
	"core.ignoreStat", "core.logAllRefUpdates", "core.looseCompression", "core.multiPackIndex", "core.notesRef",
	"core.packedGitLimit", "core.packedGitWindowSize", "core.packedRefsTimeout", "core.precomposeUnicode",
	"core.preferSymlinkRefs", "core.preloadIndex", "core.protectHFS", "core.protectNTFS", "core.quotePath",
	"core.repositoryFormatVersion", "core.restrictinheritedhandles", "core.safecrlf", "core.sharedRepository",
	"core.sparseCheckout", "core.sparseCheckoutCone", "core.splitIndex", "core.symlinks", "core.trustctime",
	"core.unsetenvvars", "core.untrackedCache", "core.useReplaceRefs", "core.warnAmbiguousRefs",
	"core.whitespace", "credential.protectProtocol", "credential.sanitizePrompt", "credential.useHttpPath",
	"credential.username", "diff.<driver>.binary", "diff.<driver>.cachetextconv", "diff.<driver>.wordRegex",
	"diff.<driver>.xfuncname", "diff.algorithm", "diff.autoRefreshIndex", "diff.colorMoved",
	"diff.colorMovedWS", "diff.context", "diff.dirstat", "diff.ignoreSubmodules", "diff.indentHeuristic",
	"diff.interHunkContext", "diff.mnemonicPrefix", "diff.noprefix", "diff.relative", "diff.renameLimit",
	"diff.renames", "diff.statGraphWidth", "diff.suppressBlankEmpty", "diff.wordRegex", "diff.wsErrorHighlight",
	"fetch.fsck.<msg-id>", "fetch.fsckObjects", "fetch.negotiationAlgorithm", "fetch.output", "fetch.parallel",
	"fetch.prune", "fetch.pruneTags", "fetch.recurseSubmodules", "fetch.showForcedUpdates", "fetch.unpackLimit",
	"fetch.writeCommitGraph", "format.attach", "format.cc", "format.coverFromDescription", "format.coverLetter",
	"format.encodeEmailHeaders", "format.filenameMaxLength", "format.forceInBodyFrom", "format.from",
	"format.headers", "format.notes", "format.numbered", "format.pretty", "format.signOff", "format.signature",
	"format.subjectPrefix", "format.suffix", "format.thread", "format.to", "format.useAutoBase", "gpg.format",
	"gpg.minTrustLevel", "http.curloptResolve", "http.delegation", "http.emptyAuth", "http.extraHeader",
	"http.followRedirects", "http.lowSpeedLimit", "http.lowSpeedTime", "http.maxRequests", "http.minSessions",
	"http.noEPSV", "http.postBuffer", "http.proxy", "http.proxyAuthMethod",
	"http.proxySSLCertPasswordProtected", "http.saveCookies", "http.schannelCheckRevoke",
	"http.schannelUseSSLCAInfo", "http.sslBackend", "http.sslCertPasswordProtected", "http.sslCipherList",
	"http.sslTry", "http.sslVerify", "http.sslVersion", "http.userAgent", "http.version", "init.defaultBranch",
	"interactive.singleKey", "merge.<driver>.name", "merge.<driver>.recursive", "merge.autoStash",
	"merge.branchdesc", "merge.conflictStyle", "merge.defaultToUpstream", "merge.directoryRenames", "merge.ff",
	"merge.log", "merge.renameLimit", "merge.renames", "merge.renormalize", "merge.stat", "merge.suppressDest",
	"merge.verbosity", "merge.verifySignatures", "remote.<name>.fetch", "remote.<name>.mirror",
	"remote.<name>.partialclonefilter", "remote.<name>.promisor", "remote.<name>.proxy",
	"remote.<name>.proxyAuthMethod", "remote.<name>.prune", "remote.<name>.pruneTags", "remote.<name>.push",
	"remote.<name>.pushurl", "remote.<name>.skipDefaultUpdate", "remote.<name>.skipFetchAll",
	"remote.<name>.tagOpt", "remote.<name>.url", "remote.pushDefault", "submodule.<name>.active",
	"submodule.<name>.branch", "submodule.<name>.fetchRecurseSubmodules", "submodule.<name>.ignore",
	"submodule.<name>.url", "submodule.active", "submodule.alternateErrorStrategy",
	"submodule.alternateLocation", "submodule.fetchJobs", "submodule.propagateBranches",
}

// ClassifyGitKey returns the rule for a key as git help --config prints
// it, and whether one covers it. In a risky section a section's wildcard
// covers nothing: only a rule that names the key does.
func ClassifyGitKey(key string) (GitKeyRule, bool) {
	lower := strings.ToLower(key)
	section, _, _ := strings.Cut(lower, ".")
	for _, r := range GitKeyRules {
		p := strings.ToLower(r.Pattern)
		if p == lower {
			return r, true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(lower, prefix) {
			if riskySections()[section] && p == section+".*" {
				continue
			}
			return r, true
		}
	}
	for _, k := range harmlessRiskyKeys {
		if strings.ToLower(k) == lower {
			return GitKeyRule{Pattern: k, Kind: "neither"}, true
		}
	}
	return GitKeyRule{}, false
}

// GitKeyChecked reports whether the git validator itself checks key (as
// a concrete key, <parts> filled in) where it is set: a key that runs a
// program, names a path, or includes a file.
func GitKeyChecked(key string) bool {
	lower := strings.ToLower(key)
	for _, value := range []string{"x", "!x"} { // submodule.<name>.update runs only "!command"
		if _, risk := gitConfigRisk(lower, value); risk != gitRiskNone {
			return true
		}
	}
	if _, ok := gitPathKeys.get()[lower]; ok {
		return true
	}
	return lower == "include.path" || strings.HasPrefix(lower, "includeif.") && strings.HasSuffix(lower, ".path") || lower == "core.worktree"
}
