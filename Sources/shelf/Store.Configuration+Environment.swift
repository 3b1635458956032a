import Foundation
import ShelfStore

extension Store.Configuration {
    /// The configuration the `SHELF_*` variables ask for; the library reads none itself.
    ///
    /// - `SHELF_WRITE_TIMEOUT_MS`: how long a write waits for another's lock (60,000).
    /// - `SHELF_SLOW_QUERY_MS`: what `--verbose` logs as slow (100; 0 logs every statement).
    /// - `SHELF_BULK_IMPORT_MIN_ROWS`: the fewest rows an import stages to take the bulk
    ///   path (10,000; for tests).
    /// - `SHELF_BULK_ACTION_MIN_ROWS`: the fewest items a bulk change writes to set its
    ///   indexes aside (10,000; for tests).
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Store.Configuration {
        var configuration = Store.Configuration()
        if let milliseconds = environment["SHELF_WRITE_TIMEOUT_MS"].flatMap(Int64.init), milliseconds > 0 {
            configuration.writeTimeout = .milliseconds(milliseconds)
        }
        if let milliseconds = environment["SHELF_SLOW_QUERY_MS"].flatMap(Int64.init), milliseconds >= 0 {
            configuration.slowQueryThreshold = .milliseconds(milliseconds)
        }
        if let rows = environment["SHELF_BULK_IMPORT_MIN_ROWS"].flatMap(Int64.init), rows >= 0 {
            configuration.bulkImportMinimumRows = rows
        }
        if let rows = environment["SHELF_BULK_ACTION_MIN_ROWS"].flatMap(Int64.init), rows >= 0 {
            configuration.bulkActionMinimumRows = rows
        }
        return configuration
    }
}
