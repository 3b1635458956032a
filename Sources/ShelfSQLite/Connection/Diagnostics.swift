internal import CSQLite
package import Logging
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#endif

/// Where the SQLite layer tells what it does: change tracking, checkpoints, migrations and
/// slow statements, through swift-log under the label `shelf.sqlite`.
///
/// Every message is at `debug` or `trace`: a program that never configures logging sees
/// nothing (swift-log's default handler shows `info` and above). The `shelf` command turns
/// them on with `--verbose` or `SHELF_LOG=debug`.
package enum Diagnostics {
    /// The SQLite layer's logger: the process's logging system's (made on first use), at the
    /// level `setLogLevel` gave, if any.
    package static var logger: Logger {
        var logger = base
        if let level = level.withLock({ $0 }) { logger.logLevel = level }
        return logger
    }
    private static let base = Logger(label: "shelf.sqlite")
    private static let level = Mutex<Logger.Level?>(nil)

    /// Shows this layer's messages from `level` up, whatever the logging system's handler
    /// would show; nil leaves it to the handler. Process-wide, as the logger is: the store
    /// opened last sets it (`Store.Configuration.logLevel`).
    package static func setLogLevel(_ newLevel: Logger.Level?) {
        level.withLock { $0 = newLevel }
    }

    /// Statements that run at least this long are logged as slow (`debug`), with their SQL
    /// text (never their values); 0 logs every statement. 100 ms until `setSlowStatementThreshold`
    /// sets another (the logger is the process's, so the threshold is too).
    package static var slowStatementNanoseconds: Int64 { slowNanoseconds.load(ordering: .relaxed) }
    private static let slowNanoseconds = Atomic<Int64>(100 * 1_000_000)

    /// Sets `slowStatementNanoseconds` (negative counts as zero).
    package static func setSlowStatementThreshold(nanoseconds: Int64) {
        slowNanoseconds.store(max(0, nanoseconds), ordering: .relaxed)
    }

    /// Logs `message` at `debug`, for modules that do not import swift-log themselves.
    package static func debug(_ message: @autoclosure () -> String) {
        logger.debug("\(message())")
    }

    /// Whether connections should time their statements: only while debug messages are shown,
    /// since SQLite's profiling reads the clock twice per statement.
    static var profilesStatements: Bool { logger.logLevel <= .debug }

    /// Has SQLite report each statement's run time on `handle`, to log slow ones.
    static func profile(_ handle: OpaquePointer) {
        guard profilesStatements else { return }
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_PROFILE), profileCallback, nil)
    }
}

/// SQLite's profile callback: `statement` ran for `*elapsed` nanoseconds.
private func profileCallback(
    kind: UInt32, context: UnsafeMutableRawPointer?, statement: UnsafeMutableRawPointer?,
    elapsed: UnsafeMutableRawPointer?
) -> Int32 {
    guard kind == UInt32(SQLITE_TRACE_PROFILE), let statement, let elapsed else { return 0 }
    let nanoseconds = elapsed.load(as: Int64.self)
    guard nanoseconds >= Diagnostics.slowStatementNanoseconds else { return 0 }
    let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? "?"
    let milliseconds = Double(nanoseconds) / 1_000_000
    Diagnostics.logger.debug(
        "slow statement: \(milliseconds.formatted(places: 1)) ms",
        metadata: ["sql": "\(sql.split(whereSeparator: \.isNewline).joined(separator: " "))"])
    return 0
}

extension Double {
    /// The number with `places` decimals, without Foundation.
    func formatted(places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (self * scale).rounded()
        let whole = Int64(scaled / scale)
        let fraction = Int64(abs(scaled).truncatingRemainder(dividingBy: scale))
        guard places > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole).\(String(repeating: "0", count: places - digits.count))\(digits)"
    }
}
