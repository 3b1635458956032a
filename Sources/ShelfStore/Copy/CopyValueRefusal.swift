/// A source value that the target of a copy cannot store (text that is not UTF-8, for
/// PostgreSQL), thrown by `CopyTransaction.insert(_:into:)` with where it is; the copy says it
/// in its own terms (a copy's or a restore's), naming the source and what to do.
package struct CopyValueRefusal: Error, Sendable, Hashable {
    /// The table of the row, such as `items`.
    package let table: String
    /// The row's ID, when it has one.
    package let row: Int64?
    /// The column that holds the value.
    package let column: String
    /// What is wrong with the value, to follow "holds": "bytes that are not UTF-8 text, which
    /// PostgreSQL cannot store".
    package let problem: String

    /// When the value is right but for a byte that can simply go (NUL): that byte as an SQL
    /// blob (`x'00'`), which the message's UPDATE removes.
    package let removal: String?

    package init(table: String, row: Int64?, column: String, problem: String, removal: String? = nil) {
        self.table = table
        self.row = row
        self.column = column
        self.problem = problem
        self.removal = removal
    }

    /// "items row 5, column title" (or "an items row, column title" without an ID).
    package var place: String {
        row.map { "\(table) row \($0), column \(column)" } ?? "a row of \(table), column \(column)"
    }
}
