package rank
