/// How binary messages are written in raw line mode (`--binary-output`, whose
/// values are the raw values).
public enum BinaryOutputMode: String, CaseIterable, Sendable { case raw, base64, drop }
