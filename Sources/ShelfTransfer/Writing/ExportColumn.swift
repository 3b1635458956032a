/// A column of an export (`UserColumn`, `ItemColumn`); `allCases` is the default order.
protocol ExportColumn: CaseIterable {
    /// The column's name in a header or as a JSON key.
    var key: StaticString { get }
}

extension ExportColumn {
    /// `key` as a `String`, as `ExportOptions.columns` names it.
    var name: String { key.description }

    /// The columns `names` (checked by `ExportOptions.selectedColumns`) name, in order.
    static func plan(_ names: [String]) -> [Self] {
        names.compactMap { name in allCases.first { $0.name == name } }
    }
}
