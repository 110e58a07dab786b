import Foundation
import PackagePlugin

/// Build tool plugin of the BuildInfo target: before every build it runs
/// stamp.sh (next to this file), which writes `let generatedCommit = "..."`
/// into the plugin's work directory: the package's `git describe`, or
/// $WSPIPE_COMMIT when the build sets it (a source tree without .git),
/// or "". Nothing generated goes into the sources.
///
/// Build tooling only: it runs in SwiftPM's plugin process (Foundation for
/// its URLs and the environment); nothing of it is linked into wspipe.
@main
struct CommitStamp: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let root = context.package.directoryURL
        let script = root.appending(path: "Sources/CommitStamp/stamp.sh")
        // SwiftPM runs the command with an empty environment: the variable is passed as an argument.
        let given = ProcessInfo.processInfo.environment["WSPIPE_COMMIT"] ?? ""
        return [.prebuildCommand(displayName: "Stamping the commit for wspipe --version",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [script.path(), output.path(), root.path(), given],
                                 outputFilesDirectory: output)]
    }
}
