/// Where `MessageOutput` shows incoming messages besides (or instead of)
/// writing their lines: the interactive transcript (`InteractiveFrontend`).
protocol MessageDisplay: AnyObject {
    /// Shows a message whose line goes to `destination`, when the display
    /// covers that destination. True when the line must not be written there
    /// as well: the destination is the terminal the display draws on.
    func show(_ payload: UnsafeRawBufferPointer, binary: Bool, goingTo destination: Destination) -> Bool
}
