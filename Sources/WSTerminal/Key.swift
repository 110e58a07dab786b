/// One key press, or one bracketed paste, decoded from terminal input by
/// `KeyDecoder`. Keys are named for what the terminal sent, not for what they
/// do: `LineEditor` decides that.
public enum Key: Equatable, Sendable {
    /// Printable characters typed in one go (one key, or several that arrived
    /// in one read). Never holds a control character.
    case text(String)
    /// ESC [ 200 ~ ... ESC [ 201 ~: everything pasted, line breaks as "\n".
    case paste(String)
    case enter
    case tab
    case backspace
    case delete
    case left, right, up, down
    case home, end
    /// Ctrl or Alt with Left/Right (xterm modifier parameters).
    case wordLeft, wordRight
    /// Ctrl plus a letter, as the lower-case letter ("a" for Ctrl-A). Ctrl-H,
    /// Ctrl-I, Ctrl-J and Ctrl-M arrive as .backspace, .tab and .enter.
    case ctrl(Character)
    /// Alt (Meta) plus a printable ASCII character, sent as ESC then the character.
    case alt(Character)
    case altBackspace
    case altEnter
    /// A lone ESC: no sequence followed it (see `KeyDecoder.flushEscape()`).
    case escape
    /// A sequence this editor has no use for (F-keys, PageUp, Insert, ...).
    case ignored
}
