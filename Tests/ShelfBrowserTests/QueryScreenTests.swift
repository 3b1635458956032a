import Foundation
import ShelfPresentation
import ShelfStore
import ShelfTerminal
import ShelfTerminalTesting
import Testing

@testable import ShelfBrowser

/// The search field speaks the query language: mistakes show under it while the rest filters,
/// and the words found are highlighted in the titles.
@MainActor
@Suite("Query language in the browser")
struct QueryScreenTests {
    @Test func aMistakeShowsInlineAndTheRestStillFilters() async throws {
        let (store, _) = try await makeStore(items: 12)
        let screen = browser(store, width: 100, height: 12)
        #expect(await screen.waitUntil { $0.contains("12 items") })
        screen.send(.character("/"))
        screen.type("prio:9 item 1")
        #expect(await screen.waitUntil { $0.contains("4 items") }, "Item 1, 10, 11, 12 match; prio:9 is left out")
        let lines = screen.lines
        #expect(lines[1].contains("⚠ column 1: prio:"), "\(screen.text)")
        #expect(lines[1].contains("the rest still filters"))
        // Corrected, the line goes and the rows move up.
        for _ in 0..<"prio:9 item 1".count { screen.send(KeyEvent(.backspace)) }
        screen.type("item 1")
        #expect(await screen.waitUntil { !$0.contains("⚠") && $0.contains("4 items") })
    }

    /// Each part that cannot be understood is named, not only the first (issue 21's leftover:
    /// "(and 2 more)" hid which).
    @Test func everyPartThatCannotBeUnderstoodIsNamed() async throws {
        let (store, _) = try await makeStore(items: 12)
        let screen = browser(store, width: 100, height: 14)
        #expect(await screen.waitUntil { $0.contains("12 items") })
        screen.send(.character("/"))
        screen.type("prio:9 item when:soon \"unclosed")
        #expect(await screen.waitUntil { $0.contains("unclosed") && $0.contains("⚠") })
        let lines = screen.lines
        #expect(lines[1].contains("⚠ column 1: prio:"), "\(screen.text)")
        #expect(lines[2].contains("⚠ column 13: unknown filter when:"), "\(screen.text)")
        #expect(lines[3].contains("⚠ column 23:"), "\(screen.text)")
        #expect(lines[3].trimmingCharacters(in: .whitespaces).hasSuffix("the rest still filters"), "\(screen.text)")
        #expect(!screen.text.contains("more)"))
    }

    @Test func theWordsFoundAreHighlightedInTheTitles() async throws {
        let (store, users) = try await makeStore(items: 0)
        try await store.items.insert(NewItem(userID: users[0].id, title: "Moth and motors"))
        try await store.items.insert(NewItem(userID: users[0].id, title: "Other things"))
        let screen = browser(store, width: 100, height: 8)
        #expect(await screen.waitUntil { $0.contains("2 items") })
        screen.send(.character("/"))
        screen.type("mot")
        #expect(await screen.waitUntil { $0.contains("1 item") && !$0.contains("Other") })
        let canvas = screen.screen
        let row = try #require((0..<canvas.size.height).first { screen.lines[$0].contains("Moth and motors") })
        let text = screen.lines[row]
        let start = try #require(text.range(of: "Moth")).lowerBound
        let column = text.distance(from: text.startIndex, to: start)
        let marked = (0..<canvas.size.width).filter { canvas[$0, row].style.attributes.contains(.underline) }
        // "Mot" of Moth and "mot" of motors, not the rest of the words.
        #expect(marked == Array(column..<column + 3) + Array(column + 9..<column + 12), "\(marked) in \(text)")
    }

    @Test func aViewOpenedFromOutsideShowsItsTextInTheField() async throws {
        let (store, _) = try await makeStore(items: 3)
        let model = BrowserViewModel(
            store: store, now: clock,
            initialView: SavedView(
                id: SavedView.ID(1), name: "Twos", queryText: "item 2", sortFieldName: "title",
                sortDirection: .ascending, owner: nil, createdAt: Date(), updatedAt: Date(), version: 1))
        let screen = HeadlessScreen(
            rootController: BrowserController(viewModel: model), size: Size(width: 100, height: 8))
        defer { screen.close() }
        #expect(await screen.waitUntil { $0.contains("1 item") })
        #expect(screen.lines[0].hasPrefix("/item 2"))
    }
}
