import Foundation
import Testing

/// Titles whose width terminals count each their own way, through the real `shelf browse` in
/// tmux: every row's columns stay in place and the detail pane's labels stay whole.
@Suite("shelf browse draws any title", .serialized)
struct BrowserRenderingTests {
    static let width = 100
    static let height = 30

    /// Titles that garbled their row and the detail pane when cells were reached by relative
    /// cursor moves.
    static let titles = [
        "\u{2764}\u{FE0F} heart with a presentation selector",
        "line\u{2028}separator and paragraph\u{2029}separator",
        "Za" + String(repeating: "\u{301}", count: 450) + "lgo with 450 marks",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} family joined with ZWJ",
        "\u{2764} heart without selector, e\u{301}t\u{E9}, \u{1F1EB}\u{1F1F7} flag",
        "Plain title between them",
    ]

    /// Columns of the part of a row from `index` on, for text whose width every terminal
    /// agrees on (ASCII, box drawing and block elements); nil for anything else.
    static func certainColumns(_ text: Substring) -> Int? {
        var columns = 0
        for scalar in text.unicodeScalars {
            guard (0x20..<0x7F).contains(scalar.value) || (0x2500...0x259F).contains(scalar.value) else { return nil }
            columns += 1
        }
        return columns
    }

    @Test func everyRowKeepsItsColumnsAndTheDetailPaneItsLabels() async throws {
        let shelf = try ShelfProcess()
        defer { shelf.cleanUp() }
        let db = shelf.databasePath
        #expect(
            try await shelf.run(["users", "add", "--db", db, "--name", "Ada Lovelace", "--email", "ada@example.com"])
                .status
                == 0)
        // Enough older items that the list scrolls: its scrollbar then fills the last column
        // of every row, so a row's end is the screen's right edge.
        let fillers = "title\n" + (1...40).map { "Filler item \($0)\n" }.joined()
        let imported = try await shelf.run(
            ["import", "items", "-", "--db", db, "--format", "csv", "--user", "ada@example.com", "--quiet"],
            input: fillers)
        #expect(imported.status == 0, "\(imported.error)")
        for title in Self.titles {
            let added = try await shelf.run(["items", "add", "--db", db, "--user", "ada@example.com", "--title", title])
            #expect(added.status == 0, "\(added.error)")
        }
        let tmux = try TmuxSession(
            ShelfProcess.executable.path + " browse --db " + TmuxSession.quote(db), width: Self.width,
            height: Self.height, environment: ["HOME": shelf.folder.path])
        let total = 40 + Self.titles.count
        var screen = try await tmux.waitFor("\(total) items")

        // The header is ASCII: where its "Owner" starts is the owner column.
        let header = try #require(screen.first { $0.contains("Title") && $0.contains("Owner") })
        let ownerColumn = try #require(header.range(of: "Owner")).lowerBound.utf16Offset(in: header)

        // Select each new item in turn (newest first): the list and the detail pane redraw.
        for step in 0..<Self.titles.count {
            let id = total - step
            screen = try await tmux.waitFor { $0.contains(line: "Item #\(id) ") && $0.contains(line: "Priority") }
            try checkRows(screen, ownerColumn: ownerColumn, step: step)
            try checkDetailPane(screen, id: id)
            try tmux.type("j")
        }
        // Back up over them all, then quit.
        for _ in 0..<Self.titles.count { try tmux.type("k") }
        screen = try await tmux.waitFor { $0.contains(line: "Item #\(total) ") }
        try checkRows(screen, ownerColumn: ownerColumn, step: Self.titles.count)
        try checkDetailPane(screen, id: total)
        try tmux.type("q")
        try await tmux.waitFor("[exit 0]")
    }

    /// Every item row shows its owner at the owner column: the text from the owner on has
    /// widths every terminal agrees on, and the row ends at the right edge (the scrollbar).
    private func checkRows(_ screen: [String], ownerColumn: Int, step: Int) throws {
        let rows = screen.filter { $0.contains("Ada Lovelace") && !$0.contains("<ada@example.com>") }
        #expect(rows.count >= Self.titles.count, "step \(step): \(screen.joined(separator: "\n"))")
        for row in rows {
            let owner = try #require(row.range(of: "Ada Lovelace"))
            let tail = try #require(Self.certainColumns(row[owner.lowerBound...]), "step \(step): \(row)")
            #expect(Self.width - tail == ownerColumn, "step \(step), the owner is out of its column: \(row)")
        }
        for title in Self.titles where title.hasPrefix("Plain") {
            #expect(screen.contains(line: String(title.prefix(20))), "step \(step)")
        }
    }

    /// The detail pane of item `id`: each field line reads whole, between its borders.
    private func checkDetailPane(_ screen: [String], id: Int) throws {
        let top = try #require(screen.firstIndex { $0.contains("Item #\(id) ") })
        let fields = screen[top...].prefix { !$0.hasPrefix("└") }
        let expected = ["│Status    open", "│Priority  none (0)", "│Owner     Ada Lovelace <ada@example.com>"]
        for label in expected {
            let line = try #require(
                fields.first { $0.hasPrefix(label) }, "\(label) in \(fields.joined(separator: "\n"))")
            #expect(line.hasSuffix("│") && line.count == Self.width, "\(line)")
        }
        for label in ["│Created   ", "│Updated   "] {
            let line = try #require(
                fields.first { $0.hasPrefix(label) }, "\(label) in \(fields.joined(separator: "\n"))")
            #expect(line.contains(" UTC") && line.hasSuffix("│") && line.count == Self.width, "\(line)")
        }
        let text = screen.joined(separator: "\n")
        for garbled in ["PPriority", "SStatus", "OOwner", "nnone", "((0"] {
            #expect(!text.contains(garbled), "\(text)")
        }
    }
}
