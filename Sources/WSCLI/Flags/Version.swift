/// The release number, shown by `--version` and in the default User-Agent.
public let wspipeVersion: String = "0.1.0"

/// What `wspipe --version` prints (without the trailing newline).
public let wspipeVersionLine: String = "wspipe " + wspipeVersion
