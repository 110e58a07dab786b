/// One `${...}` of a message template (wspipe(1): TEMPLATES). Every value is
/// put in as JSON, so a template that is valid JSON stays valid whatever the
/// value holds.
public enum TemplateVariable: Equatable, Sendable {
    /// `${NAME}`: the latest value of `--capture NAME`, null before one was seen.
    case capture(String)
    /// `${.KEYPATH}`: the value at KEYPATH of the message being answered,
    /// null where it has none; `${.}` is the whole message.
    case field([String])
    /// `${line}`: the stdin line, as a JSON string.
    case line
    /// `${seq}`: 1, 2, 3... for the messages made from templates (see `SequenceCounter`).
    case seq
    /// `${now_ms}`: the wall clock, in milliseconds since the Unix epoch.
    case nowMs
    /// `${env:NAME}`: environment variable NAME, as a JSON string, read when
    /// the template is parsed (an unset one is refused then).
    case environment(String)

    /// The names a `--capture` may not take: they are the built-in variables.
    public static let builtInNames: Set<String> = ["line", "seq", "now_ms"]

    /// What JSON the value always is. The start-up check puts a stand-in of
    /// that kind in its place (`TemplateCheck`).
    enum Kind {
        /// A string: `${line}`.
        case string
        /// Digits only: `${seq}`, `${now_ms}`.
        case number
        /// Any JSON value: captures and fields.
        case anyValue
    }

    var kind: Kind {
        switch self {
        case .line, .environment: return .string
        case .seq, .nowMs: return .number
        case .capture, .field: return .anyValue
        }
    }

    /// As written in a template.
    public var spelling: String {
        switch self {
        case .capture(let name): return "${\(name)}"
        case .field(let path): return "${.\(path.joined(separator: "."))}"
        case .line: return "${line}"
        case .seq: return "${seq}"
        case .nowMs: return "${now_ms}"
        case .environment(let name): return "${env:\(name)}"
        }
    }
}

/// What the templates of one flag may refer to, beside `${seq}` and
/// `${now_ms}`, which every template has.
public struct TemplateScope: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `${NAME}` of a `--capture` (client mode).
    public static let captures = TemplateScope(rawValue: 1)
    /// `${.KEYPATH}` of the message being answered (`--answer`).
    public static let message = TemplateScope(rawValue: 2)
    /// `${line}`, the stdin line (`--wrap`).
    public static let line = TemplateScope(rawValue: 4)
}
