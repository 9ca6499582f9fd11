import SNSPlatform

/// What the media handlers share.
struct MediaDependencies: Sendable {
    let configuration: MediaConfiguration
    let receiver: MultipartReceiver
    let store: MediaStore
    let catalog: MediaCatalog
    let root: MediaRoot
}
