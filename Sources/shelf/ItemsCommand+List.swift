import ArgumentParser
import Foundation
import ShelfReactive
import ShelfStore
import ShelfTerminal
import ShelfTransfer

extension ItemsCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List items by ID.",
            discussion: """
                A table on a terminal; tab-separated ID, status, priority, owner, title and update time \
                otherwise, with tabs, line breaks and control characters escaped.
                """)

        @OptionGroup var database: DatabaseOptions

        @OptionGroup var filter: ItemFilterOptions

        @Flag(help: "Print a JSON array, as `shelf export items --format json` does.")
        var json = false

        /// Streams the rows from one snapshot, a buffer at a time: memory stays flat whatever
        /// the number of items.
        func run() async throws {
            let store = try await database.openStore()
            let query = try await filter.itemQuery(in: store, sortDirection: .ascending)
            if json {
                try await exporting {
                    try await Exporter(store: store).exportItems(matching: query, format: .json, to: .standardOutput)
                }
                return
            }
            let table = TextTable([
                .init(header: "ID", width: 7, cuts: false), .init(header: "STATUS", width: 6),
                .init(header: "P", width: 1, cuts: false), .init(header: "OWNER", width: 24),
                .init(header: "TITLE", width: nil), .init(header: "UPDATED (UTC)", width: 16, cuts: false),
            ])
            try await BlockingWork.run { cancellation in
                var output = OutputBuffer()
                if let header = table.header { try output.append(header) }
                try store.forEachItem(matching: query) { item in
                    try cancellation.check()
                    let updated =
                        table.terminal
                        ? TimeFormat.minute(millisecondsSince1970: item.updatedAt, zone: false)
                        : TimeFormat.iso8601(millisecondsSince1970: item.updatedAt)
                    try output.append(
                        table.line([
                            String(item.id), item.status, String(item.priority), item.ownerEmail, item.title, updated,
                        ]))
                }
                try output.flush()
            }
        }
    }
}
