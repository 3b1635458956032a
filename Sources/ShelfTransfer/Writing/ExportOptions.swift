/// How an export writes its rows.
public struct ExportOptions: Sendable {
    /// The output's format.
    public var format: TransferFormat
    /// The byte between CSV fields; nil writes the format's (a comma, a tab for TSV).
    /// Refused with JSON, and when it is in the times or numbers written unquoted (`-`, `:`,
    /// `.`, `+`).
    public var delimiter: Delimiter?

    /// The columns to write, by name, in this order: the CSV header and each JSON object's keys
    /// follow it. Nil (the default) writes every column in the order of `userColumns` or
    /// `itemColumns`. A name that is not a column of the table, a name given twice, or an
    /// empty list makes the export throw a `TransferError` listing the valid names, before
    /// anything is written. A subset imports back when it holds what an import needs (items:
    /// `title` and an owner, `user`; users: `name` and `email`); missing fields take an import's
    /// defaults.
    public var columns: [String]?

    /// Spreadsheet safety (OWASP's advice against CSV injection): a text cell that starts with
    /// `=`, `+`, `-`, `@`, a tab or a carriage return is written with a `'` in front, so that a
    /// spreadsheet shows it as text instead of evaluating it as a formula. Only text fields
    /// (names, emails, titles, notes) are changed: IDs, priorities and times are numbers and
    /// dates Shelf writes itself and never start with those characters. For CSV only: a JSON
    /// export with it throws a `TransferError` (JSON is not opened as cells, and the prefix
    /// would change the data its readers get). Off by default, so that an export imports back
    /// to the same data; an export with it is for people, and importing it keeps the `'`.
    public var excelSafe: Bool

    /// The output's compression (the name of a file destination does not choose it).
    public var compression: TransferCompression

    /// Options; by default CSV with the format's delimiter, every column, unchanged text,
    /// uncompressed.
    public init(
        format: TransferFormat = .csv, delimiter: Delimiter? = nil, columns: [String]? = nil,
        excelSafe: Bool = false, compression: TransferCompression = .none
    ) {
        self.format = format
        self.delimiter = delimiter
        self.columns = columns
        self.excelSafe = excelSafe
        self.compression = compression
    }

    /// The columns of a users export, in their default order.
    public static let userColumns = UserColumn.allCases.map(\.name)

    /// The columns of an items export, in their default order (`user` is the owner's email).
    public static let itemColumns = ItemColumn.allCases.map(\.name)

    /// The columns `columns` names among `available` (`userColumns` or `itemColumns`), in its
    /// order; all of `available` when `columns` is nil.
    /// - Throws: `TransferError` for an unknown name, a name given twice or an empty list; the
    ///   message lists the valid names.
    public func selectedColumns(among available: [String]) throws(TransferError) -> [String] {
        guard let columns else { return available }
        let valid = "the columns are " + available.joined(separator: ", ")
        guard !columns.isEmpty else { throw TransferError("no columns are named; name at least one: \(valid)") }
        var seen = Set<String>()
        for name in columns {
            guard available.contains(name) else {
                let shown = name.isEmpty ? "an empty column name" : "no column is named '\(name)'"
                throw TransferError("\(shown); \(valid)")
            }
            guard seen.insert(name).inserted else {
                throw TransferError("the column '\(name)' is named twice; name each column once (\(valid))")
            }
        }
        return columns
    }

    /// Refuses options that do not go together.
    func check() throws(TransferError) {
        if excelSafe, format == .json || format == .ndjson {
            throw TransferError(
                "excel-safe applies to CSV only: \(format.rawValue) is not opened as spreadsheet cells, "
                    + "and the prefix would change the data; export CSV, or leave excel-safe off")
        }
    }
}
