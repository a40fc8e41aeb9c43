package nsip

import (
	"context"
	"errors"
)

// DefaultBaseURL is the public NSIP Search API. It is plain HTTP because the
// host has no valid TLS certificate.
const DefaultBaseURL = "http://nsipsearch.nsip.org/api"

// Client talks to the NSIP Search API. It is safe for concurrent use.
type Client struct{}

// Option configures a Client.
type Option func(*Client) error

// NewClient returns a client for the NSIP API.
func NewClient(opts ...Option) (*Client, error) { return &Client{}, nil }

var errTODO = errors.New("nsip: not implemented yet")

// DateLastUpdated calls GET search/getDateLastUpdated.
func (c *Client) DateLastUpdated(ctx context.Context) (*LastUpdate, error) { return nil, errTODO }

// BreedGroups calls GET search/getAvailableBreedGroups.
func (c *Client) BreedGroups(ctx context.Context) (*BreedGroups, error) { return nil, errTODO }

// Statuses calls GET search/getStatusesByBreedGroup.
func (c *Client) Statuses(ctx context.Context) (*Statuses, error) { return nil, errTODO }

// TraitRanges calls GET search/getTraitRangesByBreed.
func (c *Client) TraitRanges(ctx context.Context, breedID int) (*TraitRanges, error) {
	return nil, errTODO
}

// SearchAnimals calls POST search/getPageOfSearchResults.
func (c *Client) SearchAnimals(ctx context.Context, p SearchParams) (*SearchResults, error) {
	return nil, errTODO
}

// AnimalDetails calls GET details/getAnimalDetails.
func (c *Client) AnimalDetails(ctx context.Context, searchString string) (*AnimalDetails, error) {
	return nil, errTODO
}

// Lineage calls GET details/getLineage.
func (c *Client) Lineage(ctx context.Context, lpnID string) (*Lineage, error) { return nil, errTODO }

// Progeny calls GET details/getPageOfProgeny.
func (c *Client) Progeny(ctx context.Context, lpnID string, page, pageSize int) (*ProgenyPage, error) {
	return nil, errTODO
}

// ByLPN fetches details, lineage and the first progeny page concurrently.
func (c *Client) ByLPN(ctx context.Context, lpnID string) (*AnimalProfile, error) {
	return nil, errTODO
}
