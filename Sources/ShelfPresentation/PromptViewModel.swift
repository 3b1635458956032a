public import ShelfReactive

/// A one-line question answered by typing: the owner's email or a priority for the marked
/// items. `submit(_:)` checks the answer with `validate` and hands it to `perform`, which may
/// refuse it with a message (no such user); the prompt stays open until an answer is taken
/// or it is cancelled. Main actor.
@MainActor
public final class PromptViewModel {
    /// The dialog's title, e.g. "Owner of 3 items".
    public let title: String
    /// The question, e.g. "Email of the new owner:".
    public let question: String
    /// The text the field starts with.
    public let initialText: String
    /// Why the last answer was refused; nil when there is none.
    public let error: Property<String?>
    /// The keys that answer.
    public nonisolated static let hints = "Enter: apply    Esc: cancel"
    /// nil while asking; true once an answer was taken, false once cancelled.
    public let decision: Property<Bool?>

    private let validate: @MainActor (String) -> String?
    private let perform: @MainActor (String) async -> String?
    private let mutableError = MutableProperty<String?>(nil)
    private let mutableDecision = MutableProperty<Bool?>(nil)
    private var isSubmitting = false
    private let tasks = IntentTracker()

    /// A prompt. `validate` returns why a text is unacceptable (nil when fine), at once;
    /// `perform` acts on an acceptable text and returns why it could not (nil when done).
    public init(
        title: String, question: String, initialText: String = "",
        validate: @escaping @MainActor (String) -> String? = { _ in nil },
        perform: @escaping @MainActor (String) async -> String?
    ) {
        self.title = title
        self.question = question
        self.initialText = initialText
        self.validate = validate
        self.perform = perform
        error = mutableError.property
        decision = mutableDecision.property
    }

    /// Checks `text` and acts on it; `decision` becomes true when it was taken, else `error`
    /// says why not. Does nothing while an answer is being acted on, or once decided.
    @discardableResult
    public func submit(_ text: String) -> Intent {
        guard !isSubmitting, mutableDecision.value == nil else { return .done }
        if let problem = validate(text) {
            mutableError.value = problem
            return .done
        }
        isSubmitting = true
        return tasks.start(
            { [weak self, perform] in
                let problem = await perform(text)
                guard let self else { return }
                isSubmitting = false
                if let problem {
                    mutableError.value = problem
                } else {
                    mutableDecision.value = true
                }
            }, onFailure: { _ in })  // `perform` cannot throw: it returns its problem
    }

    /// Closes without acting: `decision` becomes false (when not decided yet).
    public func cancel() {
        if mutableDecision.value == nil { mutableDecision.value = false }
    }
}
