public enum CaptureBuilderStub {}
