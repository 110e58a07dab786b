import WSJSON

/// The start-up check of a template (wspipe(1): TEMPLATES): would it be JSON
/// whatever its variables hold?
///
/// Each variable is replaced by a stand-in of its kind and the text is
/// validated: `""` for `${line}` (always a string), `1` for `${seq}` and
/// `${now_ms}` (always digits), and for a variable that may hold any JSON
/// value, `""` and then `0`. A place where both a string and a number may
/// stand is a value's place, where any value may; a key's place takes only
/// the string, a number's or a string's inside takes only the number. So a
/// template that passes stays JSON for every value. The error is reported
/// where the template has it: a stand-in's error at its variable.
enum TemplateCheck {
    static func check(_ text: [UInt8], _ parts: [MessageTemplate.Part]) throws(TemplateError) {
        try validate(text, parts, anyValue: Array("\"\"".utf8))
        try validate(text, parts, anyValue: Array("0".utf8))
    }

    /// Where a piece of the checked text came from.
    private struct Piece {
        var checkStart: Int
        var count: Int
        var originalStart: Int
        /// The variable a stand-in stands for; nil for literal text.
        var variable: (TemplateVariable, inString: Bool)?
    }

    private static func validate(_ text: [UInt8], _ parts: [MessageTemplate.Part], anyValue: [UInt8]) throws(TemplateError) {
        var checked: [UInt8] = []
        var pieces: [Piece] = []
        for part in parts {
            switch part {
            case .literal(let range):
                pieces.append(Piece(checkStart: checked.count, count: range.count, originalStart: range.lowerBound))
                checked.append(contentsOf: text[range])
            case .variable(let variable, let offset, _, let inString):
                let standIn: [UInt8]
                switch variable.kind {
                case .string: standIn = Array("\"\"".utf8)
                case .number: standIn = Array("1".utf8)
                case .anyValue: standIn = anyValue
                }
                pieces.append(Piece(checkStart: checked.count, count: standIn.count, originalStart: offset,
                                    variable: (variable, inString)))
                checked.append(contentsOf: standIn)
            }
        }
        let validation = checked.withUnsafeBytes { JSONScanner.validate($0) }
        guard let error = validation.error else { return }
        guard let piece = pieces.last(where: { $0.checkStart <= error.offset && error.offset < $0.checkStart + $0.count })
        else {
            // At the end: the template stops inside a value (or is empty).
            throw .at(text.count, in: text, "not valid JSON: \(error.reason)")
        }
        guard let (variable, inString) = piece.variable else {
            throw .at(piece.originalStart + error.offset - piece.checkStart, in: text, "not valid JSON: \(error.reason)")
        }
        var reason = "not valid JSON with a value in place of \(variable.spelling): \(error.reason)"
        if inString {
            reason += " (a variable is a whole JSON value, a string with its quotes: it cannot be put inside a string)"
        } else if variable.kind == .anyValue {
            reason += " (it may hold any JSON value, so it can only stand where a value does)"
        }
        throw .at(piece.originalStart, in: text, reason)
    }
}
