import WSConnect
/// The man page's FROM THE BROWSER, CONFIG FILES and FILES sections, and
/// its ENVIRONMENT: `wspipe curl`, the config files and profiles, and the
/// files and variables wspipe reads.
extension ManPageRenderer {
    static func fromTheBrowser(_ page: inout RoffPage) {
        page.paragraphs([
            "wspipe curl runs a curl command as a browser's developer tools copy a WebSocket request (\"Copy as "
                + "cURL\" in the network panel of Chrome and Firefox, for bash or for cmd), with curl's meanings, "
                + "and then as wspipe would with the OPTIONS given after --. The leading curl is optional. Pasted "
                + "after wspipe curl in a POSIX shell, the command's quotes are the shell's business; given -, "
                + "the command is read from stdin and cut into words as bash would ('...', \"...\", $'...' and a "
                + "backslash at the end of a line) or as cmd.exe would (^\" quoting and ^ at the end of a line), "
                + "whichever wrote it, and so is a single argument holding a whole command. Nothing in it is "
                + "expanded or run: a variable, a pipe or a second command is refused. Stdin is read up to the "
                + "end of the line that completes the command, so the lines after it are the session's "
                + "messages, and at a terminal the interactive mode starts as soon as it is pasted.",
            "The headers a browser copies are read for what they mean: Origin and User-Agent become --origin "
                + "and --user-agent, each name in Sec-WebSocket-Protocol a --protocol, and "
                + "Sec-WebSocket-Extensions: permessage-deflate --compress (wspipe makes its own offer). Those the "
                + "handshake makes itself (Sec-WebSocket-Key, Sec-WebSocket-Version, Upgrade, Connection, Host) "
                + "and Accept-Encoding are dropped, as are the options that mean nothing here; -v says what was "
                + "dropped and why. An http:// or https:// URL is read as ws:// or wss://. The curl options read, "
                + "with what each becomes:",
        ])
        page.example(CurlOption.offered.map { option in
            let names = (option.short.map { "-\($0), " } ?? "") + "--" + option.long + (option.takesValue ? " X" : "")
            if case .dropped = option.meaning { return names.padding(to: 26) + "Dropped: nothing to do (-v says why)" }
            return names.padding(to: 26) + option.summary
        })
        page.paragraphs([
            "Any other curl option is refused, naming it (exit status 2): a request body, an output file or a "
                + "time limit has no meaning for a WebSocket session, and guessing would send another request "
                + "than the browser's.",
            "wspipe curl --print prints the wspipe command line instead, one option a line. Its Cookie and "
                + "Authorization headers (-u's credentials as an Authorization header too) go to HOST.headers in "
                + "the current directory, with mode 0600, which the command reads with --header-file; a proxy's "
                + "password goes to HOST.proxy-user the same way. So the secrets stay out of ps(1) and the "
                + "shell's history. A file of that name is replaced.",
        ])
    }

    static func configFiles(_ page: inout RoffPage) {
        page.paragraphs([
            "Before its command line, wspipe reads the default config file, $XDG_CONFIG_HOME/wspipe/config, or "
                + "~/.config/wspipe/config without XDG_CONFIG_HOME: WSPIPE_CONFIG names another (set and empty, "
                + "none), and --no-config skips it. The default file applies to runs with a URL; a server reads "
                + "only the files given with -K, which come next, in order. No file is read for --help, "
                + "--version and --generate, and a missing default file costs one failed open(2).",
            "The syntax is curl's (curl(1), -K): one option a line, its long name with or without the leading "
                + "-- (or a short one with its dash), then its value after a blank, or after = or : when the "
                + "name has no dashes. A value with a blank is quoted, \"...\", with the escapes \\\\, \\\", \\t, "
                + "\\n, \\r and \\v; a line whose first character is # is a comment, and so is the rest of a line "
                + "after an unquoted value and a blank. A switch has no value. A mistake is a usage error "
                + "naming the file and the line.",
            "[NAME] starts a section, a profile, which ends at the next one. A section applies when --profile "
                + "NAME names it (with no URL given, its first url line is the URL), or, without --profile, when "
                + "one of its url = PREFIX lines is the longest prefix of the URL among all the sections read: "
                + "then only that one. A prefix matches at a boundary: wss://example.com matches "
                + "wss://example.com/ws but neither wss://example.com.evil.net nor wss://example.com:8443; "
                + "scheme and host compare in any case. --check with no URL given connects to its recordings' "
                + "URLs, so they choose the section; recordings whose URLs choose different sections (or some "
                + "none) are a usage error, so that no profile's token goes to another server.",
            "The lines outside sections come first, file by file, then the profile's, then the command line: a "
                + "later flag replaces an earlier value of the same flag and of the flags it conflicts with "
                + "(--binary on the command line drops a file's text). Repeatable flags add up, except a header, "
                + "route, capture or answer of the same name, which replaces the earlier one. A line the run "
                + "cannot use (a client setting with --listen, ack-timeout without ack) is skipped. -v names the "
                + "files and the section read, and each line skipped.",
            "A file holding a header, a password (user, proxy-user, a proxy URL's) or cookie data is refused "
                + "when its group or others may read it, as ssh(1) refuses a loose key: chmod 600 it.",
        ])
        page.example([
            "# ~/.config/wspipe/config",
            "backoff = 500ms:10s",
            "",
            "[staging]",
            "url = wss://staging.example.com/",
            "header-command = \"printf 'Authorization: Bearer %s\\\\n' \\\"$(staging-token)\\\"\"",
            "origin = https://staging.example.com",
            "cacert = /etc/ssl/staging-ca.pem",
            "type-key = event.kind",
        ])
        page.paragraphs(["Then wspipe wss://staging.example.com/ws sends the token and the Origin, trusts the "
            + "staging CA and routes by event.kind; wspipe --profile staging connects there without a URL."])
    }

    static func files(_ page: inout RoffPage) {
        page.item("$XDG_CONFIG_HOME/wspipe/config, ~/.config/wspipe/config",
                  "The default config file (CONFIG FILES).")
        page.item("$XDG_STATE_HOME/wspipe/history, ~/.local/state/wspipe/history",
                  "The interactive mode's history, mode 0600 (WSPIPE_HISTFILE names another).")
        page.item("$XDG_CONFIG_HOME/wspipe/messages.ndjson, ~/.config/wspipe/messages.ndjson",
                  "The interactive mode's saved messages (/save, /send), mode 0600.")
        page.item("HOST.headers, HOST.proxy-user",
                  "Written by wspipe curl --print in the current directory, mode 0600 (FROM THE BROWSER).")
    }

    static func environment(_ page: inout RoffPage) {
        page.item("NO_COLOR", "When set, wspipe never writes ANSI colour; without it, colour is only ever used when the stream is a terminal.")
        page.item("http_proxy, https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY",
                  "Without --proxy or --unix-socket, a ws:// connection goes through the proxy in http_proxy "
                      + "and a wss:// one through https_proxy, each falling back to all_proxy; the lower-case name "
                      + "wins, and HTTP_PROXY is ignored, as by curl. Values take the form of --proxy.")
        page.item("no_proxy, NO_PROXY",
                  "Hosts to reach without the proxy, as for --noproxy, which replaces them.")
        page.item("XDG_STATE_HOME, HOME",
                  "The interactive mode keeps its history in $XDG_STATE_HOME/wspipe/history, "
                      + "or ~/.local/state/wspipe/history without XDG_STATE_HOME.")
        page.item("WSPIPE_HISTFILE",
                  "The history file instead; set and empty, no history is kept on disk.")
        page.item("XDG_CONFIG_HOME",
                  "Where the default config file is, $XDG_CONFIG_HOME/wspipe/config, and the interactive mode's "
                      + "saved messages (/save, /send), $XDG_CONFIG_HOME/wspipe/messages.ndjson; "
                      + "~/.config/wspipe/ without it.")
        page.item("WSPIPE_CONFIG",
                  "The default config file instead; set and empty, none is read (as --no-config).")
        page.item("SSLKEYLOGFILE",
                  "Without --keylog, the file the TLS secrets are appended to, as curl, Firefox and Python do; "
                      + "wspipe says on stderr that it writes them.")
        page.item("WSPIPE_KERNEL_TIMESTAMPS",
                  "Set to 0, wspipe does not ask the kernel when the server's TCP acknowledged each write and "
                      + "when each segment arrived: the bound of RECONNECT AND REPLAY confirms what was delivered, "
                      + "as on systems without those stamps (for tests and comparisons).")
        page.item("WSPIPE_PLAIN",
                  "When set to anything but the empty string, the interactive mode draws no status row "
                      + "(as --no-status-line): for screen readers, which would read it again at every message.")
    }
}

private extension String {
    /// Padded with spaces to `width` characters (at least one space after).
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(1, width - count))
    }
}
