import ArgumentParser
import Foundation
import Logging
import Synchronization

/// Turns the libraries' diagnostics on for one run of `shelf`: silent by default, shown on
/// standard error with `--verbose` (debug) or `SHELF_LOG=LEVEL`.
enum LogSetup {
    private static let state = Mutex<(started: Bool, withheld: Bool)>((false, false))

    /// The level `verbose` and `SHELF_LOG` ask for, or nil for none. `--verbose` means debug
    /// unless `SHELF_LOG` names a lower (more detailed) level.
    static func level(verbose: Bool, environment: [String: String]) throws -> Logger.Level? {
        var level: Logger.Level? = verbose ? .debug : nil
        if let text = environment["SHELF_LOG"], !text.isEmpty {
            guard let named = Logger.Level(rawValue: text.lowercased()) else {
                let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandError("SHELF_LOG=\(text) is not a log level; use one of \(names), or unset it")
            }
            level = min(level ?? named, named)
        }
        return level
    }

    /// Sets up logging once per process; later calls do nothing. When `screenOnStandardError`
    /// (the browser draws on the terminal standard error also writes to), messages are
    /// withheld rather than drawn over the screen, and `withheld` says so afterwards.
    static func start(
        verbose: Bool, screenOnStandardError: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let level = try level(verbose: verbose, environment: environment)
        let begin = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard begin else { return }
        guard let level, !screenOnStandardError else {
            if level != nil { state.withLock { $0.withheld = true } }
            LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
            return
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// True when logs were asked for but withheld because the screen was on standard error.
    static var withheld: Bool { state.withLock { $0.withheld } }
}
