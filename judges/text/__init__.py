"""Text processing: tokenization with original offsets, sentence segmentation, windows."""
