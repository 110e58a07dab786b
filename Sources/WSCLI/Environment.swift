import WSTransport

/// What planning a run reads from outside the command line (files aside):
/// a value, so tests can plan for a terminal without having one.
struct Environment {
    /// stdout is a terminal: a person is reading.
    var stdoutIsTerminal: Bool
    /// NO_COLOR is set to a non-empty value (no-color.org).
    var noColor: Bool
    /// An environment variable (the proxy variables, as curl reads them).
    var variable: (String) -> String? = { _ in nil }
    /// stdin is a terminal: a person is typing (with stdout a terminal too,
    /// the interactive mode).
    var stdinIsTerminal = false
    var stderrIsTerminal = false
    /// $XDG_STATE_HOME and $HOME (empty counts as unset), for the history file.
    var stateHome: String? = nil
    var home: String? = nil
    /// $WSPIPE_HISTFILE as it is: nil when unset, "" (no history) when empty.
    var historyFile: String? = nil
    /// $XDG_CONFIG_HOME (empty counts as unset), for the saved messages.
    var configHome: String? = nil
    /// $WSPIPE_CONFIG as it is: nil when unset, "" (no default config file) when empty.
    var configFile: String? = nil
    /// $SSLKEYLOGFILE (empty counts as unset): where TLS secrets go without --keylog.
    var keyLogFile: String? = nil
    /// WSPIPE_PLAIN is set to a non-empty value: no status row (for screen readers).
    var plain = false

    /// This process's.
    static func current() -> Environment {
        let noColor = variable("NO_COLOR") != nil
        return Environment(stdoutIsTerminal: StdioMode.isTerminal(1), noColor: noColor,
                           variable: ProxySelection.getenvironment,
                           stdinIsTerminal: StdioMode.isTerminal(0), stderrIsTerminal: StdioMode.isTerminal(2),
                           stateHome: variable("XDG_STATE_HOME"), home: variable("HOME"),
                           historyFile: ProcessEnvironment.variable("WSPIPE_HISTFILE"),
                           configHome: variable("XDG_CONFIG_HOME"),
                           configFile: ProcessEnvironment.variable("WSPIPE_CONFIG"),
                           keyLogFile: variable("SSLKEYLOGFILE"), plain: variable("WSPIPE_PLAIN") != nil)
    }

    /// Empty counts as unset.
    private static func variable(_ name: String) -> String? {
        guard let value = ProcessEnvironment.variable(name), !value.isEmpty else { return nil }
        return value
    }
}
