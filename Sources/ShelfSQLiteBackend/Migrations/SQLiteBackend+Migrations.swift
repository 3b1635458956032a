internal import Foundation
internal import ShelfSQLite
public import ShelfStore

extension Store {
    /// The state of every migration in the file at `path`, without changing it. A missing
    /// file reports every migration as pending and is not created.
    /// - Throws: `StoreError` when the file exists but cannot be read.
    public static func migrationStatus(path: String) throws -> [MigrationStatus] {
        guard FileManager.default.fileExists(atPath: path) else {
            return migrator.migrations.map { MigrationStatus(name: $0.name, state: .pending) }
        }
        return try StoreError.translating {
            let database = try Database(path: path, readerCount: 1)
            return try migrator.status(database).map { status in
                let state: MigrationStatus.State =
                    switch status.state {
                    case .applied(let date): .applied(date)
                    case .pending: .pending
                    case .modified(let date): .modified(date)
                    case .unknown(let date): .unknown(date)
                    }
                return MigrationStatus(name: status.name, state: state)
            }
        }
    }
}
