/// How an export writes its rows.
public struct ExportOptions: Sendable {
    /// The output's format.
    public var format: TransferFormat
    /// The byte between CSV fields; nil writes the format's (a comma, a tab for TSV).
    /// Refused with JSON, and when it is in the times or numbers written unquoted (`-`, `:`,
    /// `.`, `+`).
    public var delimiter: Delimiter?

    /// Options; by default CSV.
    public init(format: TransferFormat = .csv, delimiter: Delimiter? = nil) {
        self.format = format
        self.delimiter = delimiter
    }
}
