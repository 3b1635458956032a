import ArgumentParser
import Foundation
import ShelfReactive
import ShelfStore

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Print live results as JSON lines until interrupted.",
        subcommands: [Items.self])

    struct Items: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the matching items as one JSON line, then a line after every change.",
            discussion: """
                Each line is {"count": N, "items": [...]}: the total number of matching items and the \
                first --limit of them. Changes made by any process (another shelf, the sqlite3 shell, \
                a script) are seen. Runs until interrupted (Ctrl-C).
                """)

        @OptionGroup var database: DatabaseOptions

        @OptionGroup var filter: ItemFilterOptions

        @Option(help: "How many items each line lists.")
        var limit = 50

        func validate() throws {
            guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        }

        func run() async throws {
            let termination = Termination()
            let signal = try await watch(until: termination)
            // The store is released by now (a --demo database is deleted); exit like a
            // process ended by that signal, except for a closed pipe, which is a normal end.
            if signal != SIGPIPE { throw ExitCode(128 + signal) }
        }

        private func watch(until termination: Termination) async throws -> Int32 {
            let store = try await database.openStore()
            let live = try store.liveItems(matching: try await filter.itemQuery(in: store), limit: limit)
            let encoder = JSONEncoder.lines
            let token = Lifetime.Token()
            live.observe(during: token.lifetime) { result in
                let window: ItemWindow
                switch result {
                case .success(let value): window = value
                case .failure(let error):
                    // Said once per failure; the query retries by itself, unless the file is gone.
                    printError("Error: \(error.message)")
                    if error.code == .fileReplaced { termination.finish(SIGHUP) }
                    return
                }
                guard let data = try? encoder.encode(WindowLine(window)) else { return }
                do {
                    try FileHandle.standardOutput.write(contentsOf: data + Data("\n".utf8))
                } catch {
                    termination.finish(SIGPIPE)  // the reader went away: stop quietly
                }
            }
            return await termination.wait()
        }
    }
}

/// One line of `shelf watch items`.
struct WindowLine: Encodable {
    let count: Int
    let items: [Item]

    init(_ window: ItemWindow) {
        count = window.totalCount
        items = window.items
    }
}

extension JSONEncoder {
    /// Compact, keys sorted and in snake case, dates as ISO 8601 with milliseconds.
    static var lines: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date))
        }
        return encoder
    }
}
