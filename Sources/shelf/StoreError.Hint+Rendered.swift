import ShelfStore

extension StoreError.Hint {
    /// The hint in the command's terms, naming its options.
    var rendered: String {
        switch self {
        case .chooseAnotherDatabase: "(choose the database with --db or SHELF_DB)"
        case .checkDatabaseLocation: "(the database comes from --db, else SHELF_DB)"
        }
    }
}
