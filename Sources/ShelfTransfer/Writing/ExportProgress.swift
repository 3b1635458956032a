/// How far an export has written.
public struct ExportProgress: Sendable {
    /// Rows written so far.
    public var rows: Int
    /// The rows the export selects, counted just before it began (a separate read: writes in
    /// between may make `rows` end above or below it); nil when counting is not cheap (the
    /// users of a server store).
    public var total: Int?
}
