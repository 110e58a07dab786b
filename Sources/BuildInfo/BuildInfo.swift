/// Where this executable was built from, for `wspipe --version`.
///
/// `generatedCommit` is written at every build by the CommitStamp plugin
/// (Sources/CommitStamp) into the build directory, never into the sources:
/// the checkout's commit (`git describe --always --dirty`), or
/// $WSPIPE_COMMIT when the build sets it (a source tree without .git), or
/// "" when neither says.
public enum BuildInfo {
    public static var commit: String? {
        generatedCommit.isEmpty ? nil : generatedCommit
    }
}
