import Foundation
import ShelfStore
import Testing

@testable import ShelfPresentation

/// Hostile round 12: messages that name a key ("Enter to open", "Esc goes back") named the
/// default once the configuration file rebound it; each names the key `KeyNames` gives.
@Suite("Keys named in messages")
struct KeyNamesInMessagesTests {
    static let keys = KeyNames(rebound: ["list.open": "l", "user-form.close": "Ctrl-Q"])

    @Test func theNotesMarkerAndTheUserFormsFailureNameTheKeysInForce() {
        let notes = (1...1_000).map { "line \($0)" }.joined(separator: "\n")
        let item = Item(
            id: Item.ID(1), userID: User.ID(1), title: "t", notes: notes, status: .open, priority: 0,
            createdAt: fixedDate, updatedAt: fixedDate, version: 1)
        let content = ItemDetailContent(item: item, owner: nil)
        let marker = content.notesMarker(keys: Self.keys)
        #expect(marker?.hasSuffix(" more KB — l to open)") == true, "\(marker ?? "nil")")
        #expect(content.notesMarker?.hasSuffix(" more KB — Enter to open)") == true, "the defaults")

        let gone = StoreError(.notFound, "user 3 not found")
        #expect(
            UserEditorViewModel.phase(for: gone, keys: Self.keys)
                == .failed("This user was removed by someone else; nothing was saved. Ctrl-Q goes back."))
        #expect(
            UserEditorViewModel.phase(for: gone)
                == .failed("This user was removed by someone else; nothing was saved. Esc goes back."))
    }
}
