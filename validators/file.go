package validators

// file (file 5.44, libmagic) reads the start of each file it is given and
// names its type, using the system's magic database.
//
// Refused: -z/-Z look inside compressed files, and for formats libmagic
// has no library for (compress, zstd, lzip, lz4, ...) file runs the
// decompressor as an external program found on PATH (checked on this
// Debian: "file -z x.zst" execs zstd, "file -z x.Z" execs gzip). -m loads
// magic from a colon-separated list of files (so one confined-looking
// word can name several), and its warnings quote the lines they cannot
// parse ("file -m secret x" prints the first line of secret); -C compiles
// magic and writes a .mgc file; -f reads the names to examine from a file,
// where vtexec cannot see them; -S turns off the seccomp sandbox (Debian
// builds file without one, but elsewhere it is the only fence around -z).
// Kept: -L follows a symbolic link operand, which vtexec has already
// resolved inside the workspace; -p puts back the access time of the files
// it read, which are the confined operands.
var fileSpec = &Spec{Name: "file", Doc: "files to identify, confined (- is standard input)", Operands: ReadPaths, Flags: []Flag{
	{Long: "help"}, {Short: "v", Long: "version"},
	{Short: "m", Long: "magic-file", Arg: Text, Forbid: "loads magic from a colon-separated list of files and quotes the lines it cannot parse; the built-in database covers ordinary use"},
	{Short: "z", Long: "uncompress", Forbid: fileRunsDecompressors},
	{Short: "Z", Long: "uncompress-noreport", Forbid: fileRunsDecompressors},
	{Short: "b", Long: "brief"}, {Short: "c", Long: "checking-printout"},
	{Short: "e", Long: "exclude", Arg: Text}, {Long: "exclude-quiet", Arg: Text},
	{Short: "f", Long: "files-from", Arg: Text, Forbid: "reads the names to examine from a file, so vtexec cannot confine them; name the files as operands"},
	{Short: "F", Long: "separator", Arg: Text},
	{Short: "i", Long: "mime"}, {Long: "apple"}, {Long: "extension"},
	{Long: "mime-type"}, {Long: "mime-encoding"},
	{Short: "k", Long: "keep-going"}, {Short: "l", Long: "list"},
	{Short: "L", Long: "dereference"}, {Short: "h", Long: "no-dereference"},
	{Short: "n", Long: "no-buffer"}, {Short: "N", Long: "no-pad"}, {Short: "0", Long: "print0"},
	{Short: "p", Long: "preserve-date"}, {Short: "P", Long: "parameter", Arg: Text},
	{Short: "r", Long: "raw"}, {Short: "s", Long: "special-files"},
	{Short: "S", Long: "no-sandbox", Forbid: "turns off the system-call sandbox file may run its parsers in; drop it"},
	{Short: "C", Long: "compile", Forbid: "compiles a magic file and writes the .mgc output; vtexec does not allow custom magic"},
	{Short: "d", Long: "debug"},
}}

const fileRunsDecompressors = "runs external decompressors (gzip, zstd, lzip, ...) found on PATH to look inside compressed files; decompress with a separate command, or drop -z"

func registerFile() { registerSpec(fileSpec) }
