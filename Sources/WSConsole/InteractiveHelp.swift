/// The interactive mode's commands and keys, each with one sentence: the
/// one list that `/help` prints and the man page's INTERACTIVE MODE lists
/// (ManPageRenderer), so that neither can leave one out.
public enum InteractiveHelp {
    public struct Entry: Equatable, Sendable {
        public let usage: String
        public let text: String
    }

    private static func entry(_ usage: String, _ text: String) -> Entry { Entry(usage: usage, text: text) }

    public static let commands: [Entry] = [
        entry("/ping [TEXT]", "Send a ping with TEXT; its pong shows the round-trip time."),
        entry("/close [CODE [REASON]]", "Close the connection with CODE (default 1000) and REASON, and exit."),
        entry("/binary FILE", "Send the whole file as one binary message."),
        entry("/text TEXT", "Send TEXT as a text message, as it is."),
        entry("/filter [EXPR|off]", "Show only the messages EXPR matches: in, out, KEYPATH=VALUE (type=chat, "
              + "user.name=\"ann\"), or text they contain; a term after a minus sign hides what it "
              + "matches. Alone, shows the filter; off clears it. Hidden messages are counted, and still go to stdout when it is redirected, and to routes."),
        entry("/find [TEXT]", "List the messages kept that contain TEXT (any case), with their number and time; "
              + "alone, the last 20."),
        entry("/show N", "Print message N in full, pretty-printed."),
        entry("/resend [N]", "Send message N again (one that was sent); alone, the last one sent."),
        entry("/pretty", "One row for a message that fits, else pretty-printed and folded when longer than the screen "
              + "(the default)."),
        entry("/compact", "Every message on one row, cut at the edge of the terminal (/show N prints one whole)."),
        entry("/save NAME [MESSAGE]", "Save MESSAGE (by default the last message sent) under NAME in the saved "
              + "messages file; it may hold ${NAME} of a --capture, ${.KEYPATH} of the last message received, "
              + "${seq} and ${now_ms}."),
        entry("/send [NAME]", "Send the saved message NAME, its ${...} filled in; alone, list the saved messages."),
        entry("/reconnect", "Close the connection and connect again at once, without the --backoff delay."),
        entry("/help", "List the commands and keys."),
        entry("/quit", "Close and exit, as Ctrl-D."),
        entry("//TEXT", "Send a message that starts with /."),
    ]

    public static let keys: [Entry] = [
        entry("Left, Right, Ctrl-B, Ctrl-F", "Move by one character; wide and combined characters are kept whole."),
        entry("Home, End, Ctrl-A, Ctrl-E", "Move to the start or the end of the line."),
        entry("Alt-B, Alt-F, Ctrl-Left, Ctrl-Right", "Move by one word."),
        entry("Backspace, Delete", "Delete the character before or under the cursor."),
        entry("Ctrl-K, Ctrl-U, Ctrl-W, Ctrl-Y", "Cut to the end of the line, to its start, the word before the "
              + "cursor; paste what was cut."),
        entry("Up, Down", "Recall earlier lines (or move between the lines of a text of several)."),
        entry("Ctrl-R", "Search the history as you type; Ctrl-R again for an older match, Esc or Ctrl-G to cancel, "
              + "any other key to take the match."),
        entry("Tab", "Complete a command, a saved message's name after /send or /save, a file's path after /binary; "
              + "when several fit, list them."),
        entry("Alt-Enter", "Start a new line within the same message."),
        entry("Ctrl-L", "Clear the screen."),
        entry("Ctrl-C", "Clear the line. On an empty line, close the connection and exit with status 130, as SIGINT would."),
        entry("Ctrl-D", "On an empty line, end as at stdin EOF: close the connection normally and exit with status 0."),
        entry("Ctrl-Z", "Suspend wspipe; the shell's fg brings it back."),
    ]
}
