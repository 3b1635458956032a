internal import Foundation
internal import ShelfSQLite
public import ShelfStore

extension Store {
    /// The state of every migration in the file at `path`, without changing it. A missing
    /// file reports every migration as pending and is not created.
    /// - Throws: `StoreError` when the file exists but cannot be read.
    public static func migrationStatus(path: String) throws -> [MigrationStatus] {
        guard FileManager.default.fileExists(atPath: path) else { return migrator.plan.status([:]) }
        return try StoreError.translating {
            try migrator.status(try Database(path: path, readerCount: 1))
        }
    }
}
