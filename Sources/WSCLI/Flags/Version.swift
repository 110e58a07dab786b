import BuildInfo

/// The release number, shown by `--version`, in the default User-Agent and
/// the man page: the one place it is written (README, "Make a release").
/// packaging/release.sh reads it from this line, so keep the line's form.
public let wspipeVersion: String = "0.1.0"

/// What `wspipe --version` prints (without the trailing newline): the
/// release and the commit built (`BuildInfo`, stamped at build time), e.g.
/// "wspipe 0.1.0 (commit 2bea4ab1c3d4)", "-dirty" after it when the
/// checkout had changes; a build outside a git checkout says so.
public let wspipeVersionLine: String = "wspipe " + wspipeVersion + " ("
    + (BuildInfo.commit.map { "commit " + $0 } ?? "commit unknown: not built from a git checkout") + ")"
