BabcBabdBxabcBa
c