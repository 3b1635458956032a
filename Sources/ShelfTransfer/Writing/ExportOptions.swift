/// How an export writes its rows.
public struct ExportOptions: Sendable {
    /// The output's format.
    public var format: TransferFormat

    /// The output's compression (the name of a file destination does not choose it).
    public var compression: TransferCompression

    /// Options; by default CSV, uncompressed.
    public init(format: TransferFormat = .csv, compression: TransferCompression = .none) {
        self.format = format
        self.compression = compression
    }
}
