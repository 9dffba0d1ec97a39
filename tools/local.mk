# Command-line tools (the OTF2 importer and nvtxw-replay come with their issues).
