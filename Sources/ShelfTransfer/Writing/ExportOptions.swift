/// How an export writes its rows.
public struct ExportOptions: Sendable {
    /// The output's format.
    public var format: TransferFormat

    /// Options; by default CSV.
    public init(format: TransferFormat = .csv) {
        self.format = format
    }
}
