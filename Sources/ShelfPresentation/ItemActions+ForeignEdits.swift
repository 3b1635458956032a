internal import ShelfStore

extension ItemActions {
    /// The first item of `expected` (the items exactly as this browser's last write left
    /// them) that `current` (the same items read now) holds different in any column; an item
    /// missing from `current` counts as changed when `missingIsChanged`.
    ///
    /// Why whole rows and not only `version`: the schema moves `version` on every UPDATE
    /// (SQLite 0006, PostgreSQL 0004), whoever makes it, but a program that re-inserts a row
    /// (`INSERT OR REPLACE` in the sqlite3 shell, DELETE then INSERT in psql) writes the
    /// version it likes, usually the old one. Making the database move it on a re-insert too
    /// was measured against the alternatives and refused: SQLite cannot change a row in a
    /// BEFORE INSERT trigger, cannot tell a REPLACE from a plain INSERT of an existing ID (which
    /// must stay an error for imports and for undo's own restore, "exists again"), and fires no
    /// delete trigger for the row a REPLACE removes unless the other program turned on
    /// `recursive_triggers`; PostgreSQL cannot tell a re-insert from a restore without keeping
    /// every deleted row's last version. Comparing what undo would overwrite with what this
    /// browser left catches every such edit on both backends, at the cost of one read per item
    /// (the reads undo already made for a delete). An UPDATE between this read and the write
    /// is still caught by the versioned write; only a re-insert inside that window (a few
    /// milliseconds) is not.
    nonisolated static func firstChangedElsewhere(
        _ expected: [Item], current: [Item], missingIsChanged: Bool
    ) -> Item.ID? {
        let byID = Dictionary(current.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return expected.first { item in
            guard let now = byID[item.id] else { return missingIsChanged }
            return now != item
        }?.id
    }
}
