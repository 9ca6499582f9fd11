// Every module that builds on the platform speaks the system's contract (events, topics, the catalog), so the
// platform re-exports it: `import SNSPlatform` is enough in a service.
@_exported import SNSContract
