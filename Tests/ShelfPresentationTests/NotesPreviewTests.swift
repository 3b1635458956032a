import Foundation
import ShelfReactive
import ShelfStore
import Testing

@testable import ShelfPresentation

/// Notes of megabytes (written by another program) made every j/k onto or off their item take
/// a second: the detail pane holds a bounded preview of them, and the whole notes only when
/// the detail is opened.
@MainActor
@Suite("Notes preview")
struct NotesPreviewTests {
    /// 5 MB of notes, in lines of 100 bytes, with a multi-byte character in each line.
    static let bigNotes = String(repeating: String(repeating: "x", count: 96) + "é\n", count: 5 * 1024 * 1024 / 99)

    @Test func theDetailOfFiveMegabytesOfNotesHoldsAPreviewAndSaysHowMuchMore() async throws {
        let (store, users) = try await makeStore()
        let id = try await store.items.insert(NewItem(userID: users[0].id, title: "Big", notes: Self.bigNotes))
        let model = ItemDetailViewModel(store: store, id: id)
        await model.load().finished()
        let content = try #require(model.state.value.value)
        let notes = try #require(content.notes)
        #expect(notes.utf8.count <= ItemDetailContent.notesPreviewBytes)
        #expect(
            notes.split(separator: "\n", omittingEmptySubsequences: false).count <= ItemDetailContent.notesPreviewLines
                + 1)
        #expect(Self.bigNotes.hasPrefix(notes), "a prefix of the notes")
        #expect(content.notesHiddenBytes == Self.bigNotes.utf8.count - notes.utf8.count)
        let marker = try #require(content.notesMarker)
        #expect(marker.hasPrefix("… (") && marker.hasSuffix(" more KB — Enter to open)"), "\(marker)")
        #expect(marker.contains(Formatting.count((content.notesHiddenBytes + 1023) / 1024)), "\(marker)")

        // Opened on purpose: the whole notes.
        let whole = ItemDetailViewModel(store: store, id: id, wholeNotes: true)
        await whole.load().finished()
        let full = try #require(whole.state.value.value)
        #expect(full.notes == Self.bigNotes && full.notesHiddenBytes == 0 && full.notesMarker == nil)
    }

    @Test func aPreviewCutsAtACodePointAndAtTheLineLimitAndKeepsShortNotesWhole() {
        #expect(ItemDetailContent.preview(of: "short\nnotes") == "short\nnotes")
        // A cut that would fall inside "é" (2 bytes) stops before it.
        let odd = String(repeating: "a", count: ItemDetailContent.notesPreviewBytes - 1) + "é and more"
        let cut = ItemDetailContent.preview(of: odd)
        #expect(cut == String(repeating: "a", count: ItemDetailContent.notesPreviewBytes - 1))
        // Many short lines: the line limit cuts first.
        let lines = (1...1_000).map { "line \($0)" }.joined(separator: "\n")
        let preview = ItemDetailContent.preview(of: lines)
        #expect(preview == (1...ItemDetailContent.notesPreviewLines).map { "line \($0)" }.joined(separator: "\n"))
        let item = Item(
            id: Item.ID(1), userID: User.ID(1), title: "t", notes: lines, status: .open, priority: 0,
            createdAt: fixedDate, updatedAt: fixedDate, version: 1)
        let content = ItemDetailContent(item: item, owner: nil)
        #expect(content.notesHiddenBytes == lines.utf8.count - preview.utf8.count)
        #expect(
            content.notesMarker
                == "… (\(Formatting.count((content.notesHiddenBytes + 1023) / 1024)) more KB — Enter to open)")
    }
}
