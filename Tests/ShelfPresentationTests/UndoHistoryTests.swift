import Foundation
import ShelfPresentation
import ShelfStore
import Testing

/// The undo history as plain values: no store, no terminal.
@Suite("UndoHistory")
struct UndoHistoryTests {
    func item(_ id: Int64, title: String = "Title", status: Item.Status = .open, version: Int64 = 1) -> Item {
        Item(
            id: Item.ID(id), userID: User.ID(1), title: title, notes: "notes \(id)", status: status, priority: 1,
            createdAt: fixedDate, updatedAt: fixedDate.addingTimeInterval(Double(version)), version: version)
    }

    @Test func recordingPushesAndForgetsRedo() {
        var history = UndoHistory()
        #expect(history.nextUndo == nil && history.nextRedo == nil)
        let delete = HistoryEntry(name: "delete 1 item", change: .deleted([item(1)]))
        history.record(delete)
        #expect(history.nextUndo == delete)
        history.undone()
        #expect(history.nextUndo == nil)
        #expect(history.nextRedo?.change == .restored([item(1)]))
        history.record(HistoryEntry(name: "delete 1 item", change: .deleted([item(2)])))
        #expect(history.nextRedo == nil, "a new action forgets what could be redone")
        history.record(HistoryEntry(name: "nothing", change: .updated(previous: [], stored: [])))
        #expect(history.undoStack.count == 1, "an action that changed nothing is not recorded")
    }

    @Test func anUpdateIsReversedWithThePreviousFieldsAtTheStoredVersions() {
        let before = item(5, title: "Old", status: .open, version: 3)
        let after = item(5, title: "New", status: .done, version: 4)
        let change = ItemChange.updated(previous: [before], stored: [after])
        let writes = change.reversingWrites
        #expect(writes.count == 1)
        #expect(writes[0].title == "Old" && writes[0].status == .open && writes[0].notes == "notes 5")
        #expect(writes[0].version == 4, "checked against the version this browser wrote")
        // The store wrote version 5; redoing writes "New" at version 5.
        let undone = item(5, title: "Old", status: .open, version: 5)
        let redo = change.reversed(written: [undone])
        #expect(redo == .updated(previous: [after], stored: [undone]))
        #expect(redo.reversingWrites.map(\.title) == ["New"])
        #expect(redo.reversingWrites.map(\.version) == [5])
    }

    @Test func undoAndRedoAlternateWithFreshVersions() {
        var history = UndoHistory()
        let before = [item(1, title: "A", version: 1), item(2, title: "B", version: 1)]
        let after = [item(1, title: "A", status: .done, version: 2), item(2, title: "B", status: .done, version: 2)]
        history.record(HistoryEntry(name: "mark 2 items done", change: .updated(previous: before, stored: after)))
        let undone = [item(1, title: "A", version: 3), item(2, title: "B", version: 3)]
        history.undone(written: undone)
        #expect(history.nextRedo?.name == "mark 2 items done")
        #expect(history.nextRedo?.change.reversingWrites.map(\.status) == [.done, .done])
        let redone = [item(1, title: "A", status: .done, version: 4), item(2, title: "B", status: .done, version: 4)]
        history.redone(written: redone)
        #expect(history.nextUndo?.change.reversingWrites.map(\.version) == [4, 4])
        #expect(history.nextUndo?.change.reversingWrites.map(\.status) == [.open, .open])
        #expect(history.nextRedo == nil)
    }

    @Test func anUndoCarriesItsVersionsIntoOlderEntries() {
        var history = UndoHistory()
        let original = item(1, title: "Old", version: 1)
        let edited = item(1, title: "Edited", version: 2)
        let done = item(1, title: "Edited", status: .done, version: 3)
        history.record(HistoryEntry(name: "edit item 1", change: .updated(previous: [original], stored: [edited])))
        history.record(HistoryEntry(name: "mark 1 item done", change: .updated(previous: [edited], stored: [done])))
        #expect(history.nextUndo?.change.reversingWrites.map(\.version) == [3])
        // Undoing "done" wrote version 4 with the edited fields.
        history.undone(written: [item(1, title: "Edited", version: 4)])
        let next = history.nextUndo?.change.reversingWrites
        #expect(next?.map(\.version) == [4], "the edit's undo checks the version the last undo wrote")
        #expect(next?.map(\.title) == ["Old"])
    }

    @Test func deletesAndRestoresSwap() {
        let items = [item(7), item(8)]
        #expect(ItemChange.deleted(items).reversed(written: []) == .restored(items))
        #expect(ItemChange.restored(items).reversed(written: []) == .deleted(items))
        #expect(ItemChange.deleted(items).count == 2)
    }

    @Test func theOldestEntriesGoPastTheLimit() {
        var history = UndoHistory(limit: 2)
        for id in 1...3 { history.record(HistoryEntry(name: "delete \(id)", change: .deleted([item(Int64(id))]))) }
        #expect(history.undoStack.map(\.name) == ["delete 2", "delete 3"])
    }

    @Test func copiedLinesAreOneLineEachWithoutControlBytes() {
        var hostile = item(12, title: "Buy\u{1B}]52;c;ZXZpbA==\u{07} milk\nand\u{202E}eggs")
        hostile.status = .done
        let ann = User(id: User.ID(1), name: "Ann\u{1B}[2J", email: "ann@example.com", createdAt: fixedDate)
        let text = ItemCopyFormat.lines([hostile, item(13)], owners: [User.ID(1): ann])
        #expect(text == "#12 [done] Buy ]52;c;ZXZpbA==  milk and eggs — Ann [2J\n#13 [open] Title — Ann [2J\n")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    @Test func copiedLinesCleanEveryControlAndBidiCharacterAndKeepTheRest() {
        let ann = User(id: User.ID(1), name: "Ann", email: "ann@example.com", createdAt: fixedDate)
        let cases: [(String, String)] = [
            ("plain ASCII", "plain ASCII"),
            ("café ☕️ 漢字 — «x»", "café ☕️ 漢字 — «x»"),  // lead bytes C3, E2, E6: kept
            ("a\u{85}b\u{9F}c\u{A0}d", "a b c\u{A0}d"),  // C1 controls; NBSP kept
            ("\u{61C}x\u{200E}\u{200F}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}", " x        "),
            ("\u{2030}\u{2065}\u{206A}\u{201C}", "\u{2030}\u{2065}\u{206A}\u{201C}"),  // E2 neighbours kept
            ("\u{7F}\u{0}", "  "),
        ]
        for (title, shown) in cases {
            #expect(
                ItemCopyFormat.lines([item(1, title: title)], owners: [User.ID(1): ann]) == "#1 [open] \(shown) — Ann\n"
            )
        }
    }

    @Test func copiedJSONHasTheExportShape() {
        let ann = User(id: User.ID(1), name: "Ann", email: "ann@example.com", createdAt: fixedDate)
        var quoted = item(3, title: "Say \"hi\"\t\\")
        quoted.notes = nil
        let json = ItemCopyFormat.json([quoted], owners: [User.ID(1): ann])
        #expect(
            json == """
                [
                {"id":3,"user":"ann@example.com","title":"Say \\"hi\\"\\t\\\\","notes":null,"status":"open","priority":1,\
                "created_at":"2023-11-14T22:13:20.000Z","updated_at":"2023-11-14T22:13:21.000Z"}
                ]

                """)
        #expect(ItemCopyFormat.json([], owners: [:]) == "[]\n")
    }

    /// Hostile tester (issue 26): `Y` wrote U+009B (a CSI for terminals that take C1) and
    /// U+202E raw, so a pasted copy could drive a terminal or read backwards.
    @Test func copiedJSONEscapesC1AndBidiControlsAndParsesBackToTheSameText() throws {
        let ann = User(id: User.ID(1), name: "Ann", email: "ann@example.com", createdAt: fixedDate)
        var hostile = item(4, title: "a\u{9B}31mb\u{202E}cba\u{2066}d\u{2069}\u{2028}e\u{61C}\u{85}")
        hostile.notes = "café \u{A0}漢字 \u{201C}x\u{201D} \u{200F}"
        let json = ItemCopyFormat.json([hostile], owners: [User.ID(1): ann])
        #expect(json.contains(#""title":"a\u009b31mb\u202ecba\u2066d\u2069\u2028e\u061c\u0085""#), "\(json)")
        #expect(json.contains(#""notes":"café \#u{A0}漢字 \#u{201C}x\#u{201D} \u200f""#), "\(json)")
        let unsafe: Set<UInt32> = [0x9B, 0x85, 0x202E, 0x2066, 0x2069, 0x2028, 0x61C, 0x200F]
        #expect(!json.unicodeScalars.contains { unsafe.contains($0.value) }, "\(json)")
        let parsed = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(parsed.first?["title"] as? String == hostile.title)
        #expect(parsed.first?["notes"] as? String == hostile.notes)
    }
}
