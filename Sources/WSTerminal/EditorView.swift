/// What the edit area shows, computed from `LineEditor`'s state: everything
/// `EditorRenderer` needs and nothing else.
public struct EditorView: Equatable {
    var prompt: String
    /// The prompt of an incremental search, drawn differently from the normal one.
    var isSearch: Bool
    var text: [Character]
    /// Character index of the cursor in `text`.
    var cursor: Int
    /// A message under the edit area (why the line was not sent), or nil.
    var status: String?
    /// Columns before the second and later lines of a multi-line text, so
    /// that a pasted JSON value lines up under its first line.
    var indent: Int
    /// Character index of what a rejected line's error is about, drawn
    /// marked (with colours); nil when there is none.
    var mark: Int? = nil
    /// The status line (StatusLine), the area's last row; nil when off.
    public var footer: String? = nil
}
